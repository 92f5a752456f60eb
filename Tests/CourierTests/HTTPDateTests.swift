import Courier
import Foundation
import Testing

/// HTTP dates in the three forms RFC 9110 accepts, and everything else.
struct HTTPDateTests {
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "  sun, 06 nov 1994 08:49:37 GMT  ",
    ])
    func theThreeFormsReadTheSameInstant(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test func leapYearsAndTwoDigitYearsFollowTheCalendar() {
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Thu, 29 Feb 1900 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Thursday, 01-Jan-69 00:00:00 GMT") == Date(timeIntervalSince1970: 3_124_224_000))
    }

    @Test(arguments: [
        "", "GMT", "Sun, 31 Apr 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT trailing", "1994-11-06T08:49:37Z", "Sun, 999999999999999999999 Nov 1994 08:49:37 GMT",
    ])
    func anythingElseIsNoDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
