import Foundation

/// Hides the secrets of a URL that is about to be written down (a log line, a
/// trace attribute): the values of named query parameters, nested or not, and
/// any password. Shared by the logging and tracing plugins so both show the
/// same URL.
package struct URLRedactor: Sendable {
    /// What a hidden value is replaced with.
    package static let placeholder = "<redacted>"

    /// The names hidden unless configured otherwise: the usual names of
    /// passwords, tokens and OAuth secrets.
    package static let defaultSecretNames: Set<String> = [
        "password", "access_token", "refresh_token", "id_token", "token", "code", "api_key", "client_secret",
    ]

    /// The lower-cased names whose values are hidden.
    package let names: Set<String>

    package init(names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
    }

    /// The URL as text, with named query parameters and any password hidden.
    /// Works on the string, so the placeholder needs no percent-encoding.
    package func url(_ url: URL) -> String {
        var text = url.absoluteString
        if let password = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPassword {
            text = text.replacingOccurrences(of: ":\(password)@", with: ":\(Self.placeholder)@")
        }
        guard !names.isEmpty, let queryStart = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: queryStart)..<fragmentStart]
        return String(text[...queryStart]) + formFields(String(query)) + String(text[fragmentStart...])
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
