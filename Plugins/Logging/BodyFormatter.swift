import Foundation

/// Turns a body into what a log line shows: text cut at the limit, JSON
/// pretty-printed when asked, binary as a byte count, form fields redacted.
struct BodyFormatter: Sendable {
    let limit: Int
    let prettyPrintsJSON: Bool
    let redactor: LogRedactor

    /// Bodies larger than this are not parsed to be pretty-printed.
    private static let prettyPrintLimit = 1 << 20

    func format(_ body: Data, contentType: String?, custom: LoggingPlugin.BodyFormatting? = nil) -> String {
        guard !body.isEmpty else { return "(empty body)" }
        if let custom {
            return cut(redactor.text(redactor.jsonText(custom(body))), bodyBytes: body.count)
        }
        let type = contentType?.lowercased() ?? ""
        guard Self.isText(body, contentType: type) else { return "<\(body.count) bytes of binary data>" }
        var text: String
        let isJSON = Self.isJSON(body, contentType: type)
        if prettyPrintsJSON, isJSON, body.count <= Self.prettyPrintLimit, let pretty = prettyJSON(body) {
            text = pretty
        } else {
            // A few bytes per character at most: decode no more than can be
            // shown. A limit set past the configuration's clamp must not trap.
            let (bytes, overflow) = limit.multipliedReportingOverflow(by: 4)
            let shown = body.prefix(overflow ? Int.max : bytes.addingReportingOverflow(4).partialValue)
            // From the bytes in place: `Data` takes the generic, slow way.
            text = shown.withUnsafeBytes { String(decoding: $0.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
            // Secrets are hidden before the text is cut, so a cut never shows
            // half of one.
            if isJSON { text = redactor.jsonText(text) }
        }
        if Self.has(type, "x-www-form-urlencoded") {
            text = redactor.formFields(text)
        }
        return cut(text, bodyBytes: body.count)
    }

    /// `text` as it is, or its first `limit` characters and a note of the cut.
    private func cut(_ text: String, bodyBytes: Int) -> String {
        // No text has more characters than UTF-8 bytes: most bodies end
        // here without counting characters, which walks every grapheme.
        guard text.utf8.count > limit, text.count > limit else { return text }
        return "\(text.prefix(limit))… (cut at \(limit) characters; \(bodyBytes) bytes in all)"
    }

    // MARK: - Kinds of bodies

    private static let textTypes = ["json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "graphql", "html", "csv"]

    static func isText(_ body: Data, contentType: String) -> Bool {
        if contentType.hasPrefix("text/") || textTypes.contains(where: { has(contentType, $0) }) { return true }
        if !contentType.isEmpty && !contentType.hasPrefix("application/octet-stream") { return false }
        // No (or a generic) type: look at the first bytes.
        let sample = body.prefix(512)
        if sample.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }) { return false }
        // A multi-byte character may be cut at the end of the sample.
        return (0...3).contains { String(bytes: sample.dropLast($0), encoding: .utf8) != nil }
    }

    static func isJSON(_ body: Data, contentType: String) -> Bool {
        if has(contentType, "json") { return true }
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Whether `text` holds `part`, compared byte by byte: with Foundation
    /// imported, `contains` goes through `NSString` on Linux, and the generic
    /// `firstRange(of:)` walks element by element.
    static func has(_ text: String, _ part: String) -> Bool {
        var text = text
        var part = part
        return text.withUTF8 { text in
            part.withUTF8 { part in
                guard let first = part.first, part.count <= text.count else { return part.isEmpty }
                for start in 0...(text.count - part.count) where text[start] == first {
                    if (1..<part.count).allSatisfy({ text[start + $0] == part[$0] }) { return true }
                }
                return false
            }
        }
    }

    private func prettyJSON(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: redactor.jsonValue(object),
                                                     options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
