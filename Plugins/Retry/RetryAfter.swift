import Foundation

/// Reads a `Retry-After` header: a number of seconds, or an HTTP date
/// (RFC 9110, section 10.2.3).
enum RetryAfter {
    /// The seconds to wait from `now`. A date in the past means no wait. A
    /// value that is neither form (negative, garbage) or too large for any
    /// clock is infinity: the server asked for a pause it could not express,
    /// which is "not now", never "at once".
    static func delay(from value: String, now: Date) -> TimeInterval {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return Int(trimmed).map(TimeInterval.init) ?? .infinity
        }
        guard let date = httpDate(trimmed) else { return .infinity }
        return max(0, date.timeIntervalSince(now))
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms, which
    /// recipients must still accept.
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    static func httpDate(_ text: String) -> Date? {
        // asctime pads a one-digit day with a space ("Nov  6"); collapse runs
        // of spaces so one pattern reads both.
        let text = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        // A formatter per call: they are not safe to share across tasks, and
        // a Retry-After is rare.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                return date
            }
        }
        return nil
    }
}
