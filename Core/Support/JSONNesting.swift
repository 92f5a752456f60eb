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
    /// each zero lane is set without a carry crossing lanes. Each word adds
    /// those bits, moved down to the low bit of their lane, to eight
    /// one-byte counters, which are summed every 255 words, before any can
    /// overflow. Counting this way needs no population-count instruction,
    /// which baseline x86-64, the target Swift compiles for, lacks.
    static func openers(in bytes: UnsafeRawBufferPointer) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let bit5 = 0x20 &* ones
        let brace = 0x7B &* ones
        let low7 = 0x7F &* ones
        let evenBytes: UInt64 = 0x00FF_00FF_00FF_00FF
        let words = bytes.count / 8
        var count = 0
        var word = 0
        while word < words {
            let end = min(words, word + 255)
            var lanes: UInt64 = 0
            while word < end {
                let x = (bytes.loadUnaligned(fromByteOffset: word &* 8, as: UInt64.self) | bit5) ^ brace
                lanes &+= ~(((x & low7) &+ low7) | x | low7) >> 7
                word &+= 1
            }
            // Eight counters of at most 255 as four of at most 510, whose
            // sum the multiplication gathers in the top sixteen bits.
            let pairs = (lanes & evenBytes) &+ ((lanes >> 8) & evenBytes)
            count &+= Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) >> 48)
        }
        var offset = words &* 8
        while offset < bytes.count {
            count &+= bytes[offset] | 0x20 == UInt8(ascii: "{") ? 1 : 0
            offset &+= 1
        }
        return count
    }
}
