@testable import CourierLogging
import Foundation
import Testing

/// The redactor finds `name=value` in any text with a scanner; the regular
/// expression it replaced is kept here as the oracle, and both must hide
/// the same values in every text, tricky and random.
@Suite struct LogRedactorScannerTests {
    static let redactor = LogRedactor(headers: [], parameters: ["password", "api_key", "token"])

    /// The expression the redactor used before, over the same names.
    static func oracle(_ text: String) -> String {
        let names = ["password", "api_key", "token", "authorization", "proxy-authorization", "cookie", "set-cookie",
                     "x-api-key", "api-key", "x-auth-token"].map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        let pattern = #"(?<=[?&#])((?:[^=&\s#'"]*(?:\[|%5[Bb]))?(?:"# + names + #")(?:\]|%5[Dd])?)=[^&\s#)'"]*"#
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return "(no oracle)" }
        return regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text),
                                              withTemplate: "$1=\(LogRedactor.placeholder)")
    }

    static let samples = [
        "GET https://h/p?token=abc&page=2#api_key=k",
        "see 'https://h/p?user[password]=s&user%5Bpassword%5D=t&user%5bPASSWORD=u' (redirect)",
        "a?&token=x b?token= c#token=v&token=w",
        "curl 'https://h/?Token=QUOTED' -d \"password=p\"",
        "x?xpassword=no&password]=yes&a[b]c[token]=deep&=empty&token",
        "(https://h/p?api_key=in-parens) and ?token=end",
        "tabs?token=a\tb newline?password=c\nd",
        "no equals sign at all",
        "é?token=ünïcode&x=1",
    ]

    @Test(arguments: samples)
    func theScannerHidesWhatTheExpressionHid(text: String) {
        #expect(Self.redactor.text(text) == Self.oracle(text))
    }

    @Test func randomTextsAgreeWithTheExpression() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["?", "&", "#", "=", "token", "password", "[", "]", "%5B", "%5d", "a", "'", "\"", " ", ")", "\t", "x"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 1...24, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            #expect(Self.redactor.text(text) == Self.oracle(text), "\(text.debugDescription)")
        }
    }
}
