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
    /// Whether arrays and objects in `data` nest deeper than `maximum`
    /// levels. Brackets inside strings do not count; the text is otherwise
    /// not validated (the parser does that next).
    public static func exceeds(_ maximum: Int, in data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            // No text nests deeper than it has opening brackets, and counting
            // them is a loop without branches (the compiler vectorises it):
            // most bodies end here.
            var openers = 0
            for byte in bytes {
                openers &+= byte | 0x20 == UInt8(ascii: "{") ? 1 : 0
            }
            guard openers > maximum else { return false }
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
}
