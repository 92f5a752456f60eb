@testable import Courier
import CourierTestSupport
import Foundation
import Testing

/// The `Content-Length` values the transfer stage believes: 1 to 18 digits
/// between optional spaces and tabs; anything else is no length at all.
@Suite struct ContentLengthTests {
    @Test(arguments: [
        ("0", 0), ("1024", 1024), (" 12", 12), ("12\t", 12), (" \t 7 \t", 7),
        ("000123", 123), ("999999999999999999", 999_999_999_999_999_999),
    ] as [(String, Int64)])
    func aValueOfDigitsIsItsLength(value: String, length: Int64) {
        #expect(Transfer.contentLength(value) == length)
    }

    @Test(arguments: [
        "", " ", "\t\t", "1 2", "12a", "-1", "+1", "1.0", "0x10", "1,2", "12\n", "\r12",
        "1000000000000000000", "١٢", "１２",
    ])
    func anythingElseIsNoLength(value: String) {
        #expect(Transfer.contentLength(value) == nil)
    }

    /// Against a plain reading with Foundation, for random strings of the
    /// characters that matter.
    @Test func randomValuesReadAsFoundationWouldReadThem() {
        var generator = SeededGenerator(seed: 29)
        let alphabet = Array(" \t0123456789-+x\n")
        for _ in 0..<5_000 {
            let count = Int.random(in: 0...22, using: &generator)
            let value = String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            let expected = (1...18).contains(trimmed.count) && trimmed.allSatisfy { $0.isASCII && $0.isNumber }
                ? Int64(trimmed) : nil
            #expect(Transfer.contentLength(value) == expected, "\(value.debugDescription)")
        }
    }
}
