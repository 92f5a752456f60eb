import Courier
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
        guard let date = HTTPDate.parse(trimmed) else { return .infinity }
        return max(0, date.timeIntervalSince(now))
    }
}
