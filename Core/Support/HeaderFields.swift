import Foundation

/// Case-insensitive lookups in `[String: String]` header fields, as
/// ``TransportResponse`` and `URLRequest.allHTTPHeaderFields` hold them.
/// HTTP field names ignore case (`content-type` is `Content-Type`), and a
/// server or a plugin may spell them either way.
///
/// ```swift
/// let fields = request.allHTTPHeaderFields ?? [:]
/// let type = HeaderFields.value("content-type", in: fields)   // finds "Content-Type"
/// ```
public enum HeaderFields {
    /// The value of the field named `name`, in any letter case; `nil` when
    /// there is none. An exact match is tried first.
    public static func value(_ name: String, in fields: [String: String]) -> String? {
        if let value = fields[name] { return value }
        for (field, value) in fields where equalIgnoringASCIICase(field, name) {
            return value
        }
        return nil
    }

    /// Compares two field names byte by byte, ASCII letters in either case,
    /// without making lowercased copies (field names are ASCII).
    public static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        // Most names differ in length, which a native string knows without
        // reading it: a response's fields are compared pairwise.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in 0..<left.count where left[index] != right[index] {
                    guard left[index] | 0x20 == right[index] | 0x20, (0x61...0x7A).contains(left[index] | 0x20) else { return false }
                }
                return true
            }
        }
    }

    /// The header fields of a body after its content coding was undone:
    /// without `Content-Encoding`, and with `decodedLength` as the
    /// `Content-Length` (none when `nil`, for a stream whose length is not
    /// known), so no later plugin decodes the body twice or trusts the
    /// encoded length. The transfer stage applies it to bodies a transport
    /// decoded; a plugin that decodes a body applies it too.
    ///
    /// ```swift
    /// let fields = HeaderFields.afterDecoding(head.headerFields, decodedLength: Int64(inflated.count))
    /// ```
    public static func afterDecoding(_ fields: [String: String], decodedLength: Int64?) -> [String: String] {
        var kept = fields.filter { name, _ in !isDroppedAfterDecoding(name) }
        if let decodedLength { kept["Content-Length"] = String(decodedLength) }
        return kept
    }

    /// Whether decoding a body makes the field `name` untrue:
    /// `Content-Encoding` and `Content-Length`.
    static func isDroppedAfterDecoding(_ name: String) -> Bool {
        equalIgnoringASCIICase(name, "Content-Encoding") || equalIgnoringASCIICase(name, "Content-Length")
    }
}
