import Courier
import Foundation
import Testing

/// `URLRedactor.url` writes most URLs as they are, after one pass that
/// finds no hidden name; whatever it decides, it must hide exactly what
/// taking the query and fragment apart field by field hides.
@Suite struct URLRedactorTests {
    static let redactor = URLRedactor(names: ["token", "api_key", "accessToken"])

    /// The field-by-field way, over the same names: the query and the
    /// fragment each through `formFields`.
    static func oracle(_ url: URL) -> String {
        var text = url.absoluteString
        let fragmentStart = text.firstIndex(of: "#")
        if let fragmentStart {
            text = String(text[...fragmentStart]) + redactor.formFields(String(text[text.index(after: fragmentStart)...]))
        }
        guard let queryStart = text.firstIndex(of: "?"), fragmentStart.map({ queryStart < $0 }) ?? true else { return text }
        let queryEnd = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        return String(text[...queryStart]) + redactor.formFields(String(text[text.index(after: queryStart)..<queryEnd]))
            + String(text[queryEnd...])
    }

    @Test(arguments: [
        ("https://h/p", "https://h/p"),
        ("https://h/p?item=1&page=2", "https://h/p?item=1&page=2"),
        ("https://h/p?token=abc&page=2", "https://h/p?token=<redacted>&page=2"),
        ("https://h/p?Token=abc", "https://h/p?Token=<redacted>"),
        ("https://h/p?accesstoken=a&ACCESSTOKEN=b", "https://h/p?accesstoken=<redacted>&ACCESSTOKEN=<redacted>"),
        ("https://h/p?%74oken=abc", "https://h/p?%74oken=<redacted>"),
        ("https://h/p?user%5Btoken%5D=abc", "https://h/p?user%5Btoken%5D=<redacted>"),
        ("https://h/p?a=b?token=c", "https://h/p?a=b?token=c"),
        ("https://h/p#api_key=k&x=1", "https://h/p#api_key=<redacted>&x=1"),
        ("https://h/p?x=1#token", "https://h/p?x=1#token=<redacted>"),
        ("https://me:pw@h/p?page=1", "https://<redacted>@h/p?page=1"),
    ])
    func namedFieldsAreHiddenAndOthersKept(url: String, expected: String) throws {
        let url = try #require(URL(string: url))
        #expect(Self.redactor.url(url) == expected)
    }

    @Test func randomURLsAgreeWithTheFieldByFieldWay() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["?", "&", "#", "=", "token", "Token", "api_key", "api", "_key", "accesstoken", "page", "%74oken",
                      "%5B", "%5D", "a", "1", "+", "x.y", "-", "~"]
        var compared = 0
        for _ in 0..<4_000 {
            let tail = (0..<Int.random(in: 1...16, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }
            guard let url = URL(string: "https://h/p" + tail.joined()) else { continue }
            compared += 1
            #expect(Self.redactor.url(url) == Self.oracle(url), "\(url.absoluteString)")
        }
        // Every piece is a character a URL may hold, so nearly all parse.
        #expect(compared > 3_000)
    }
}
