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
}
