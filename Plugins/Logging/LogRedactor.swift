import Courier
import Foundation

/// Hides secrets before anything is logged: credential headers, named query
/// parameters, form fields and JSON keys, and passwords in URLs.
struct LogRedactor: Sendable {
    static let placeholder = URLRedactor.placeholder
    /// The fields that never leave their origin on a redirect, and the
    /// cookies a response sets.
    static let credentialHeaders: Set<String> = Set(
        TransferConfiguration.Redirects.defaultCredentialHeaders.map { $0.lowercased() } + ["set-cookie"]
    )

    private let headers: Set<String>
    /// The names whose values are hidden in queries, forms and JSON bodies.
    private let parameters: Set<String>
    private let urls: URLRedactor
    /// `name=value` after `?` or `&`, anywhere in a text (a URL inside an
    /// error's description). Compiled once, with the plugin.
    private let queryPattern: NSRegularExpression?
    /// `"name":` in JSON text, before the value it names.
    private let jsonKeyPattern: NSRegularExpression?

    /// - Parameters:
    ///   - headers: Header names to hide, besides the credential headers.
    ///   - parameters: Query parameters, form fields and JSON keys to hide.
    ///     The hidden header names are hidden as fields and keys too: a
    ///     server that echoes the request's headers back in its body (as
    ///     httpbin's `/get` does) must not print the token.
    init(headers: Set<String>, parameters: Set<String>) {
        self.headers = Self.credentialHeaders.union(headers.map { $0.lowercased() })
        self.parameters = Set(parameters.map { $0.lowercased() }).union(self.headers)
        self.urls = URLRedactor(names: self.parameters)
        let names = self.parameters.sorted().map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        // A name alone or as the last part of a nested one (`user[password]`,
        // percent-encoded or not); the value stops before a quote, so a
        // quoted URL in a cURL line keeps its closing quote.
        queryPattern = names.isEmpty ? nil
            : try? NSRegularExpression(
                pattern: #"(?<=[?&#])((?:[^=&\s#'"]*(?:\[|%5[Bb]))?(?:"# + names + #")(?:\]|%5[Dd])?)=[^&\s#)'"]*"#,
                options: [.caseInsensitive])
        jsonKeyPattern = names.isEmpty ? nil
            : try? NSRegularExpression(pattern: #""("# + names + #")"\s*:\s*"#, options: [.caseInsensitive])
    }

    // MARK: - Headers

    func value(ofHeader name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// Header fields sorted by name, secrets hidden.
    func headerFields(_ fields: [String: String]) -> [(name: String, value: String)] {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { (name: $0.key, value: value(ofHeader: $0.key, $0.value)) }
    }

    // MARK: - URLs and forms

    /// The URL as text, with named query parameters and any password hidden.
    func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        return urls.url(url)
    }

    /// `name=value&…` with the values of named fields hidden.
    func formFields(_ encoded: String) -> String {
        urls.formFields(encoded)
    }

    /// Any text about to be logged (an error's description that quotes
    /// other URLs, a cURL line): named query parameters hidden wherever they
    /// appear.
    func text(_ text: String) -> String {
        guard let queryPattern else { return text }
        return queryPattern.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text),
                                                     withTemplate: "$1=\(Self.placeholder)")
    }

    // MARK: - JSON

    /// JSON text with the values of named keys hidden, at any depth, whole
    /// (an object or array value included); works on text cut short or not
    /// JSON at all.
    func jsonText(_ text: String) -> String {
        guard let jsonKeyPattern else { return text }
        let utf16 = Array(text.utf16)
        var result: [UInt16] = []
        var copied = 0
        for match in jsonKeyPattern.matches(in: text, range: NSRange(location: 0, length: utf16.count))
        where match.range.location >= copied {
            let valueStart = match.range.location + match.range.length
            result += utf16[copied..<match.range.location]
            result += utf16[match.range(at: 1).location - 1..<match.range(at: 1).location + match.range(at: 1).length + 1]
            result += Array(": \"\(Self.placeholder)\"".utf16)
            copied = JSONValueEnd.end(of: utf16, from: valueStart)
        }
        result += utf16[copied...]
        return String(decoding: result, as: UTF16.self)
    }

    /// A parsed JSON value with the values of named keys hidden, at any depth.
    func jsonValue(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var redacted: [String: Any] = [:]
            for (key, member) in object {
                redacted[key] = parameters.contains(key.lowercased()) ? Self.placeholder : jsonValue(member)
            }
            return redacted
        }
        if let array = value as? [Any] {
            return array.map(jsonValue)
        }
        return value
    }
}
