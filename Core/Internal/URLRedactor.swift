import Foundation

/// Hides the secrets of a URL that is about to be written down (a log line, a
/// trace attribute): the values of named query and fragment parameters,
/// nested or not, and the user information (a user name can be a token as
/// well as a password can). Shared by the logging and tracing plugins so both
/// show the same URL.
package struct URLRedactor: Sendable {
    /// What a hidden value is replaced with.
    package static let placeholder = "<redacted>"

    /// The names hidden unless configured otherwise: the usual names of
    /// passwords, tokens and OAuth secrets, in snake case, camel case and
    /// with hyphens (names compare ignoring case).
    package static let defaultSecretNames: Set<String> = [
        "password", "access_token", "refresh_token", "id_token", "token", "code", "api_key", "client_secret",
        "accessToken", "refreshToken", "idToken", "apiKey", "clientSecret", "api-key", "auth_token", "authToken",
    ]

    /// The lower-cased names whose values are hidden.
    package let names: Set<String>

    package init(names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
    }

    /// The URL as text, with its user information and named query and
    /// fragment parameters hidden (`https://<redacted>@host/p?token=<redacted>#access_token=<redacted>`).
    /// Works on the string, so the placeholder needs no percent-encoding.
    package func url(_ url: URL) -> String {
        var text = Self.withoutUserInformation(url.absoluteString)
        guard !names.isEmpty else { return text }
        let fragmentStart = text.firstIndex(of: "#")
        if let fragmentStart {
            let fragment = text[text.index(after: fragmentStart)...]
            text = String(text[...fragmentStart]) + formFields(String(fragment))
        }
        guard let queryStart = text.firstIndex(of: "?"), fragmentStart.map({ queryStart < $0 }) ?? true else { return text }
        let queryEnd = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: queryStart)..<queryEnd]
        return String(text[...queryStart]) + formFields(String(query)) + String(text[queryEnd...])
    }

    /// `scheme://user:password@host…` as `scheme://<redacted>@host…`.
    private static func withoutUserInformation(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + placeholder + String(text[at...])
    }

    /// `name=value&…` with the values of named fields hidden.
    package func formFields(_ encoded: String) -> String {
        guard !names.isEmpty else { return encoded }
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let decoded = (name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name).lowercased()
            return isSecret(fieldNamed: decoded) ? "\(name)=\(Self.placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    /// Whether a form or query field holds a secret: its name, or a part of a
    /// nested name (`user[password]`, `credentials[api_key][]`), is one of
    /// the hidden names.
    private func isSecret(fieldNamed name: String) -> Bool {
        if names.contains(name) { return true }
        let parts = name.split(whereSeparator: { $0 == "[" || $0 == "]" }).map(String.init)
        return parts.contains(where: names.contains)
    }
}
