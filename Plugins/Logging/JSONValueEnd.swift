/// Where a JSON value ends in UTF-8 text that may be cut short: after a string's
/// closing quote, after the bracket that closes an object or array (strings
/// inside skipped), or before the `,`, `}`, `]` or space that ends a number
/// or literal; the end of the text when it ends first.
enum JSONValueEnd {
    static func end(of text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < text.count else { return text.count }
        let quote = (UInt8(ascii: "\""))
        switch text[start] {
        case quote:
            return stringEnd(text, from: start)
        case (UInt8(ascii: "{")), (UInt8(ascii: "[")):
            var depth = 0
            var index = start
            while index < text.count {
                switch text[index] {
                case quote:
                    index = stringEnd(text, from: index)
                    continue
                case (UInt8(ascii: "{")), (UInt8(ascii: "[")):
                    depth += 1
                case (UInt8(ascii: "}")), (UInt8(ascii: "]")):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return text.count
        default:
            return text[start...].firstIndex(where: isStop) ?? text.count
        }
    }

    /// What ends a number or a literal: `,`, `}`, `]` or white space.
    private static func isStop(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
             UInt8(ascii: "\t"): true
        default: false
        }
    }

    /// The index after the quote that closes the string opening at `start`.
    private static func stringEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < text.count {
            switch text[index] {
            case (UInt8(ascii: "\\")): index += 2
            case (UInt8(ascii: "\"")): return index + 1
            default: index += 1
            }
        }
        return text.count
    }
}
