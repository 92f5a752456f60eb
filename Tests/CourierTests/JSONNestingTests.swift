import Courier
import Foundation
import Testing

/// The depth check the JSON mappers run before any parser: exact at its
/// bound, blind to brackets in strings, whichever way it counts.
@Suite struct JSONNestingTests {
    static func nested(_ depth: Int, open: String = "[", close: String = "]") -> Data {
        Data((String(repeating: open, count: depth) + String(repeating: close, count: depth)).utf8)
    }

    @Test(arguments: ["[", "{"])
    func theBoundIsExact(open: String) {
        let close = open == "[" ? "]" : "}"
        #expect(!JSONNesting.exceeds(8, in: Self.nested(8, open: open, close: close)))
        #expect(JSONNesting.exceeds(8, in: Self.nested(9, open: open, close: close)))
    }

    /// More brackets than the bound, none of them deep: siblings and
    /// brackets inside strings (escaped quotes included) do not nest.
    @Test func manyShallowBracketsDoNotExceed() {
        let siblings = Data(("[" + Array(repeating: "[1],{\"a\":2}", count: 100).joined(separator: ",") + "]").utf8)
        #expect(!JSONNesting.exceeds(8, in: siblings))
        let inStrings = Data(("[\"" + String(repeating: "[{\\\"", count: 100) + "\"]").utf8)
        #expect(!JSONNesting.exceeds(8, in: inStrings))
    }

    @Test func aDeepTextAmongManyBracketsExceeds() {
        let text = Data(("[" + Array(repeating: "[1]", count: 100).joined(separator: ",") + ",").utf8)
            + Self.nested(20)
        #expect(JSONNesting.exceeds(8, in: text))
    }

    /// The count that lets most bodies through unparsed reads eight bytes at
    /// a time: across every length and offset, and among bytes one bit away
    /// from a bracket, it answers as a plain scan does.
    @Test func answersAsAPlainScanDoes() {
        let alphabet: [UInt8] = Array("[{]}\"\\a".utf8) + [0x5A, 0x7A, 0x7C, 0x5F, 0xDB, 0xFB, 0x3B, 0x1B, 0x00, 0xFF]
        var state: UInt64 = 29
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for _ in 0..<20_000 {
            let length = Int(next() % 41)
            let bytes = (0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let maximum = Int(next() % 5)
            #expect(JSONNesting.exceeds(maximum, in: Data(bytes)) == Self.plainScan(bytes, exceeds: maximum), "\(bytes)")
        }
    }

    /// The count adds up eight-byte words in blocks of 255 (2,040 bytes):
    /// a text with exactly one bracket more than the bound, its brackets on
    /// both sides of a long run of spaces, is caught whichever block each
    /// bracket falls in. One bracket missed by the count would let the text
    /// through unread.
    @Test(arguments: [2_020, 2_039, 2_040, 2_041, 2_047, 4_070, 4_079, 4_080, 4_088, 9_000])
    func everyBracketCountsAcrossLongTexts(spaces: Int) {
        for before in [0, 1, 4, 8] {
            let opening = String(repeating: "[", count: before) + String(repeating: " ", count: spaces)
                + String(repeating: "{", count: 9 - before)
            let text = Data((opening + String(repeating: "}", count: 9 - before) + String(repeating: "]", count: before)).utf8)
            #expect(JSONNesting.exceeds(8, in: text), "\(before) brackets before \(spaces) spaces")
            #expect(!JSONNesting.exceeds(9, in: text), "\(before) brackets before \(spaces) spaces")
        }
    }

    /// The depth rule byte by byte, with no shortcut.
    static func plainScan(_ bytes: [UInt8], exceeds maximum: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximum { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}
