import Foundation

/// Hides the secrets of a URL that is about to be written down: the one
/// place Courier redacts URLs, for every log line, trace attribute, error
/// description and file on disk, and for plugins of your own.
///
/// Two policies:
/// - An instance hides the values of named query and fragment parameters,
///   nested or not, and the user information (a user name can be a token as
///   well as a password can), keeping the rest readable: what the logging
///   and tracing plugins print.
/// - The static ``summary(_:)`` and ``removingSecrets(from:)`` drop the
///   query, the fragment and the user information whole, for places that
///   know no parameter names: error descriptions and stored responses.
///
/// ```swift
/// let redactor = URLRedactor(names: URLRedactor.defaultSecretNames)
/// redactor.url(URL(string: "https://me:pw@api.example.com/a?apiKey=k&page=2")!)
/// // "https://<redacted>@api.example.com/a?apiKey=<redacted>&page=2"
/// URLRedactor.summary(URL(string: "https://api.example.com/a?apiKey=k")!)
/// // "https://api.example.com/a?…"
/// ```
public struct URLRedactor: Sendable {
    /// What a hidden value is replaced with.
    public static let placeholder = "<redacted>"

    /// The names hidden unless configured otherwise: the usual names of
    /// passwords, tokens and OAuth secrets, in snake case, camel case and
    /// with hyphens (names compare ignoring case).
    public static let defaultSecretNames: Set<String> = [
        "password", "access_token", "refresh_token", "id_token", "token", "code", "api_key", "client_secret",
        "accessToken", "refreshToken", "idToken", "apiKey", "clientSecret", "api-key", "auth_token", "authToken",
    ]

    /// The lower-cased names whose values are hidden.
    public let names: Set<String>

    /// A redactor that hides the values of parameters with these names
    /// (compared ignoring case).
    public init(names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
        namesArePlain = self.names.allSatisfy { $0.utf8.allSatisfy(Self.isPlain) }
    }

    /// Whether every name is made of the bytes ``hidesNothing(in:)`` reads
    /// as part of a name; a name with others always takes the full test.
    private let namesArePlain: Bool

    /// The URL as text, with its user information and named query and
    /// fragment parameters hidden (`https://<redacted>@host/p?token=<redacted>#access_token=<redacted>`).
    /// Works on the string, so the placeholder needs no percent-encoding.
    public func url(_ url: URL) -> String {
        var text = Self.withoutUserInformation(url.absoluteString)
        // Most URLs hide nothing: they are written as they are, without the
        // arrays and strings that taking the query apart would make.
        guard !names.isEmpty, !hidesNothing(in: text) else { return text }
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

    /// Whether no query or fragment field of `text` has a hidden name: one
    /// pass over its bytes, a name looked up only where it could be one.
    private func hidesNothing(in text: String) -> Bool {
        guard namesArePlain else { return false }
        let utf8 = text.utf8
        guard var index = utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return true
        }
        while index < utf8.endIndex {
            // `index` is at a separator: `?`, `#` or `&`; a field follows.
            let nameStart = utf8.index(after: index)
            var nameEnd = nameStart
            while nameEnd < utf8.endIndex, !Self.endsName(utf8[nameEnd]) { nameEnd = utf8.index(after: nameEnd) }
            if nameEnd > nameStart, needsLookUp(text[nameStart..<nameEnd]) { return false }
            index = nameEnd
            while index < utf8.endIndex, !Self.separatesFields(utf8[index]) { index = utf8.index(after: index) }
        }
        return true
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || separatesFields(byte)
    }

    private static func separatesFields(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "?")
    }

    /// Whether a field's name may be hidden: it is one of the names as it
    /// is, or it needs the full test (encoded, nested or in capitals).
    private func needsLookUp(_ name: Substring) -> Bool {
        !name.utf8.allSatisfy(Self.isPlain) || names.contains(String(name))
    }

    /// Lower-case letters, digits, `_`, `-` and `.`: a name made of these
    /// needs no decoding, lowering or splitting to be compared.
    private static func isPlain(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// `scheme://user:password@host…` as `scheme://<redacted>@host…`.
    private static func withoutUserInformation(_ text: String) -> String {
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
              utf8[colon...].starts(with: "://".utf8) else { return text }
        let authorityStart = utf8.index(colon, offsetBy: 3)
        let authorityEnd = utf8[authorityStart...].firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        } ?? utf8.endIndex
        guard let at = utf8[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return text }
        return String(text[..<authorityStart]) + placeholder + String(text[at...])
    }

    /// `name=value&…` with the values of named fields hidden.
    public func formFields(_ encoded: String) -> String {
        guard !names.isEmpty else { return encoded }
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            // Most names need no decoding; Foundation's is slow on Linux.
            let encoded = name.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
            let decoded = (encoded ? name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name : name)
                .lowercased()
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

// MARK: - Dropping everything that may be secret

extension URLRedactor {
    /// The URL without its query, fragment and user information, with `?…`
    /// where a query was: what an error description shows.
    public static func summary(_ url: URL) -> String {
        guard let stripped = removingSecrets(from: url) else { return "<url>" }
        return stripped.absoluteString + (url.query != nil ? "?…" : "")
    }

    /// `url` without its query, fragment and user information: what may be
    /// written down (a file on disk, a database row) of a URL that may carry
    /// a token. `nil` when the URL cannot be taken apart.
    public static func removingSecrets(from url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url
    }

    /// A URL given as text, which may not parse: everything from its query
    /// or fragment on is cut, and so is any user information.
    public static func summary(urlString text: String) -> String {
        if let url = URL(string: text), url.scheme != nil { return summary(url) }
        let end = text.firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        var kept = String(text[..<end])
        if let at = kept.lastIndex(of: "@"), let scheme = kept.range(of: "://"), scheme.upperBound <= at {
            kept.removeSubrange(scheme.upperBound...at)
        }
        return kept + (end < text.endIndex ? "?…" : "")
    }
}
