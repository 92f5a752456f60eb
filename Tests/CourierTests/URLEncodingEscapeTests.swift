import Courier
import Foundation
import Testing

/// `URLEncoding.escape` works on UTF-8 bytes; Foundation's
/// `addingPercentEncoding` with the same allowed set is the oracle, for
/// every byte value and for random text in several scripts.
@Suite struct URLEncodingEscapeTests {
    /// The set the encoder allowed before: Foundation's query set without
    /// the delimiters a query component must escape.
    static let allowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    static func oracle(_ text: String) -> String? {
        text.addingPercentEncoding(withAllowedCharacters: allowed)
    }

    @Test func everyASCIICharacterIsEscapedAsFoundationEscapesIt() {
        for scalar in (0...0x7F).compactMap(Unicode.Scalar.init) {
            let text = "a\(Character(scalar))b"
            #expect(URLEncoding.escape(text) == Self.oracle(text), "\(text.debugDescription)")
        }
    }

    @Test(arguments: [("plain", "plain"), ("a b&c=d", "a%20b%26c%3Dd"), ("ünï/?", "%C3%BCn%C3%AF/?"), ("👍🏽", "%F0%9F%91%8D%F0%9F%8F%BD"),
                      ("", "")])
    func knownAnswers(text: String, expected: String) {
        #expect(URLEncoding.escape(text) == expected)
    }

    @Test func randomTextAgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "9", " ", "&", "=", "%", "+", "/", "?", "#", "[", "]", "~", "é", "中", "👍", "\u{0}", "\n", "\u{301}"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            #expect(URLEncoding.escape(text) == Self.oracle(text), "\(text.debugDescription)")
        }
    }
}
