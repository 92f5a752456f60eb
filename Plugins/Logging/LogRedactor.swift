import Foundation

/// Hides secrets before anything is logged: credential headers, named query
/// parameters and form fields, and passwords in URLs.
struct LogRedactor: Sendable {
    static let placeholder = "<redacted>"
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    private let headers: Set<String>
    private let parameters: Set<String>

    init(headers: Set<String>, parameters: Set<String>) {
        self.headers = Self.credentialHeaders.union(headers.map { $0.lowercased() })
        self.parameters = Set(parameters.map { $0.lowercased() })
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
    /// Works on the string, so the placeholder needs no percent-encoding.
    func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        var text = url.absoluteString
        if let password = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPassword {
            text = text.replacingOccurrences(of: ":\(password)@", with: ":\(Self.placeholder)@")
        }
        guard !parameters.isEmpty, let queryStart = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: queryStart)..<fragmentStart]
        return String(text[...queryStart]) + formFields(String(query)) + String(text[fragmentStart...])
    }

    /// `name=value&…` with the values of named fields hidden.
    func formFields(_ encoded: String) -> String {
        guard !parameters.isEmpty else { return encoded }
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let decoded = (name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name).lowercased()
            return parameters.contains(decoded) ? "\(name)=\(Self.placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    /// Text that may contain the unredacted URL (an error's description).
    func text(_ text: String, mentioning url: URL?) -> String {
        guard let url else { return text }
        return text.replacingOccurrences(of: url.absoluteString, with: self.url(url))
    }
}
