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
    /// The longest hidden name, in UTF-8 bytes: a quoted key longer than
    /// this is never looked up.
    private let longestName: Int
    /// The hidden names in UTF-8, indexed by their length, for ``jsonText(_:)``.
    private let namesByLength: [[[UInt8]]]
    /// Indexed by byte: whether a hidden name may start with it.
    private let mayStartName: [Bool]

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
        longestName = self.parameters.map(\.utf8.count).max() ?? 0
        var byLength = [[[UInt8]]](repeating: [], count: longestName + 1)
        for name in self.parameters { byLength[name.utf8.count].append(Array(name.utf8)) }
        namesByLength = byLength
        var starts = [Bool](repeating: false, count: 256)
        for name in self.parameters {
            guard let first = name.utf8.first else { continue }
            starts[Int(first)] = true
            // The upper-case letter too, and every byte a non-ASCII name
            // may start with, however it is written.
            if (0x61...0x7A).contains(first) { starts[Int(first - 0x20)] = true }
            if first >= 0x80 { starts.replaceSubrange(0x80..., with: repeatElement(true, count: 0x80)) }
        }
        mayStartName = starts
    }

    // MARK: - Headers

    func value(ofHeader name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// Header fields sorted by name, secrets hidden.
    func headerFields(_ fields: [String: String]) -> [(name: String, value: String)] {
        // Each name lowered once, not once per comparison.
        fields.map { (lowered: $0.key.lowercased(), name: $0.key, value: $0.value) }
            .sorted { $0.lowered < $1.lowered }
            .map { (name: $0.name, value: headers.contains($0.lowered) ? Self.placeholder : $0.value) }
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
        // No `=`, no parameter to hide: most lines, and most JSON bodies.
        guard longestName > 0, Self.bytes(of: text, contain: UInt8(ascii: "=")) else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        // `name=value` right after `?`, `&` or `#`: a name alone or as the
        // last part of a nested one (`user[password]`, percent-encoded or
        // not). The value stops before a quote, so a quoted URL in a cURL
        // line keeps its closing quote.
        while index < bytes.count {
            defer { index += 1 }
            switch bytes[index] {
            case UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "#"): break
            default: continue
            }
            let keyStart = index + 1
            var equals = keyStart
            while equals < bytes.count, !Self.endsKey(bytes[equals]) { equals += 1 }
            guard equals < bytes.count, bytes[equals] == UInt8(ascii: "="),
                  isSecretKey(String(decoding: bytes[keyStart..<equals], as: UTF8.self).lowercased())
            else { continue }
            var valueEnd = equals + 1
            while valueEnd < bytes.count, !Self.endsValue(bytes[valueEnd]) { valueEnd += 1 }
            result += bytes[copied...equals]
            result += Array(Self.placeholder.utf8)
            copied = valueEnd
            index = valueEnd - 1
        }
        guard copied > 0 else { return text }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `text` holds `byte`, read from its contiguous UTF-8: the
    /// generic walk of `String.UTF8View` costs several times as much, and
    /// most logged text is scanned this way once at least.
    static func bytes(of text: String, contain byte: UInt8) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(byte) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func endsKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: "'"), UInt8(ascii: "\""): true
        default: isSpace(byte)
        }
    }

    private static func endsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ")"), UInt8(ascii: "'"), UInt8(ascii: "\""): true
        default: isSpace(byte)
        }
    }

    /// Whether a lower-cased query key names a hidden field: the name
    /// itself, or a nested key whose last part is one (`user[password]`,
    /// `user%5bpassword%5d`, the closing bracket optional).
    private func isSecretKey(_ key: String) -> Bool {
        var key = Substring(key)
        if key.hasSuffix("]") {
            key = key.dropLast()
        } else if key.hasSuffix("%5d") {
            key = key.dropLast(3)
        }
        if parameters.contains(String(key)) { return true }
        let plain = key.lastIndex(of: "[").map { key.index(after: $0) }
        let encoded = key.range(of: "%5b", options: .backwards)?.upperBound
        return [plain, encoded].contains { start in start.map { parameters.contains(String(key[$0...])) } ?? false }
    }

    // MARK: - JSON

    /// JSON text with the values of named keys hidden, at any depth, whole
    /// (an object or array value included); works on text cut short or not
    /// JSON at all.
    func jsonText(_ text: String) -> String {
        // Bytes, not UTF-16: a native string's UTF-8 is read in place, and
        // nothing is built until a key is found.
        guard longestName > 0 else { return text }
        var text = text
        guard let redacted = text.withUTF8(jsonRedacted) else { return text }
        return String(decoding: redacted, as: UTF8.self)
    }

    /// The JSON bytes with hidden values replaced, or `nil` when no hidden
    /// key is in them.
    private func jsonRedacted(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        // A key is a quote, a hidden name (any case), a quote, white space,
        // a colon and white space; every quote may open one, whether or not
        // it closes a string, so text cut short or not JSON is covered too.
        while index < utf8.count {
            guard utf8[index] == Self.quote else {
                index += 1
                continue
            }
            let quote = index
            guard let (keyEnd, valueStart) = secretKey(in: utf8, at: quote) else {
                index = quote + 1
                continue
            }
            result += utf8[copied..<quote]
            result += utf8[quote...keyEnd]
            result += Array(": \"\(Self.placeholder)\"".utf8)
            copied = JSONValueEnd.end(of: utf8, from: valueStart)
            index = max(copied, valueStart)
        }
        guard !result.isEmpty else { return nil }
        result += utf8[copied...]
        return result
    }

    private static let quote = UInt8(ascii: "\"")

    /// Whether `key` is a hidden name, ignoring case: compared unit by unit
    /// with the names of its length, without making a string, unless it is
    /// not ASCII.
    private func isHidden(_ key: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard key.allSatisfy({ $0 < 0x80 }) else {
            return parameters.contains(String(decoding: key, as: UTF8.self).lowercased())
        }
        guard key.count < namesByLength.count else { return false }
        return namesByLength[key.count].contains { name in
            zip(name, key).allSatisfy { expected, unit in
                expected == ((0x41...0x5A).contains(unit) ? unit | 0x20 : unit)
            }
        }
    }

    /// Where the key quoted at `quote` closes and where its value starts,
    /// when it names a hidden field and a colon follows it.
    private func secretKey(in utf8: UnsafeBufferPointer<UInt8>, at quote: Int) -> (keyEnd: Int, valueStart: Int)? {
        let nameStart = quote + 1
        // Most keys are told apart by their first byte: no hidden name (in
        // any case, or any non-ASCII name) starts with it.
        guard nameStart < utf8.count, mayStartName[Int(utf8[nameStart])] else { return nil }
        let searchEnd = min(utf8.count, nameStart + longestName + 1)
        guard let close = utf8[nameStart..<searchEnd].firstIndex(of: Self.quote), close > nameStart,
              isHidden(utf8[nameStart..<close])
        else { return nil }
        func skipSpace(_ position: Int) -> Int {
            var position = position
            while position < utf8.count, Self.isSpace(utf8[position]) { position += 1 }
            return position
        }
        let colon = skipSpace(close + 1)
        guard colon < utf8.count, utf8[colon] == UInt8(ascii: ":") else { return nil }
        return (close, skipSpace(colon + 1))
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
