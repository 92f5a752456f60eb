import Foundation

/// How deep arrays and objects nest in a JSON text, read from its bytes
/// before any parser sees them: a parser that recurses per level can be made
/// to exhaust its stack by a small body of brackets. The Codable and JSON
/// mappers check it before parsing; a mapper of your own should too.
///
/// ```swift
/// if JSONNesting.exceeds(512, in: response.data) {   // before any parser runs
///     throw MappingLimitExceeded(limit: "maximumDepth", maximum: 512,
///                                reason: "the JSON nests deeper than 512 levels")
/// }
/// ```
public enum JSONNesting {
    /// The depth Courier's JSON mappers and streamed JSON views accept unless
    /// told otherwise: far deeper than any document a service means to send,
    /// far shallower than a recursive parser's stack can take.
    public static let defaultMaximumDepth = 128

    /// Whether arrays and objects in `data` nest deeper than `maximum`
    /// levels. Brackets inside strings do not count; the text is otherwise
    /// not validated (the parser does that next).
    public static func exceeds(_ maximum: Int, in data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            // No text nests deeper than it has opening brackets: most bodies
            // end here, after a count without branches.
            guard openers(in: bytes) > maximum else { return false }
            var depth = 0
            var inString = false
            var escaped = false
            for byte in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maximum { return true }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                default:
                    break
                }
            }
            return false
        }
    }

    /// How many `[` and `{` bytes `bytes` holds, eight at a time: with bit
    /// 5 set, both are `{` (and no other byte is), so each lane of the word
    /// XOR eight `{` is zero exactly where one stands, and the high bit of
    /// each zero lane is set without a carry crossing lanes. (A loop per
    /// byte took three instructions a byte.)
    static func openers(in bytes: UnsafeRawBufferPointer) -> Int {
        let brace: UInt64 = 0x7B7B_7B7B_7B7B_7B7B
        let bit5: UInt64 = 0x2020_2020_2020_2020
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var count = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            let lanes = (UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) | bit5) ^ brace
            let zeroLanes = ~(((lanes & low7) &+ low7) | lanes | low7)
            count &+= zeroLanes.nonzeroBitCount
            offset += 8
        }
        while offset < bytes.count {
            count &+= bytes[offset] | 0x20 == UInt8(ascii: "{") ? 1 : 0
            offset += 1
        }
        return count
    }
}
