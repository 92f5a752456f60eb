import Foundation

/// Reads HTTP dates (`Expires`, `Last-Modified`, `Retry-After`) in the
/// preferred IMF-fixdate form and the two obsolete forms RFC 9110 (section
/// 5.6.7) asks recipients to accept, byte by byte:
///
///     Sun, 06 Nov 1994 08:49:37 GMT     IMF-fixdate
///     Sunday, 06-Nov-94 08:49:37 GMT    RFC 850 (a two-digit year)
///     Sun Nov  6 08:49:37 1994          asctime
///
/// Anything else, or a field out of range (a 31st of April, 25 o'clock), is
/// `nil`. The weekday is read but not checked against the date, as RFC 9110
/// allows. No `DateFormatter`: it is slow, and not safe to share.
public enum HTTPDate {
    /// The instant `text` names, or `nil` when it is no HTTP date.
    public static func parse(_ text: String?) -> Date? {
        guard let text else { return nil }
        var scanner = Scanner(Array(text.utf8))
        scanner.skipSpaces()
        guard scanner.skipLetters() else { return nil }
        let fields: Fields?
        if scanner.skip(UInt8(ascii: ",")) {
            scanner.skipSpaces()
            fields = scanner.peekDigitRun() == 2 && scanner.peek(at: 2) == UInt8(ascii: "-") ? scanner.rfc850() : scanner.imfFixdate()
        } else {
            fields = scanner.asctime()
        }
        scanner.skipSpaces()
        guard let fields, scanner.isAtEnd else { return nil }
        return fields.date
    }

    struct Fields {
        var year: Int
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int

        var date: Date? {
            guard (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day),
                  (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), (1...9999).contains(year)
            else { return nil }
            let days = Self.daysSinceEpoch(year: year, month: month, day: day)
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59)))
        }

        static func days(inMonth month: Int, year: Int) -> Int {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
        static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        func peek(at offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpaces() {
            while peek() == UInt8(ascii: " ") { index += 1 }
        }

        /// A weekday or month name; at least one letter.
        mutating func skipLetters() -> Bool {
            let start = index
            while let byte = peek(), (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") { index += 1 }
            return index > start
        }

        func peekDigitRun() -> Int {
            var count = 0
            while let byte = peek(at: count), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { count += 1 }
            return count
        }

        /// Exactly `count` digits (1 to 4), or `nil`.
        mutating func number(digits count: ClosedRange<Int>) -> Int? {
            let run = peekDigitRun()
            guard count.contains(run) else { return nil }
            var value = 0
            for _ in 0..<run {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }

        mutating func month() -> Int? {
            guard index + 3 <= bytes.count else { return nil }
            let name = String(decoding: bytes[index..<index + 3], as: UTF8.self).lowercased()
            guard let month = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].firstIndex(of: name)
            else { return nil }
            index += 3
            return month + 1
        }

        mutating func time() -> (Int, Int, Int)? {
            guard let hour = number(digits: 2...2), skip(UInt8(ascii: ":")),
                  let minute = number(digits: 2...2), skip(UInt8(ascii: ":")),
                  let second = number(digits: 2...2)
            else { return nil }
            return (hour, minute, second)
        }

        mutating func gmt() -> Bool {
            guard index + 3 <= bytes.count, String(decoding: bytes[index..<index + 3], as: UTF8.self) == "GMT" else { return false }
            index += 3
            return true
        }

        /// `06 Nov 1994 08:49:37 GMT`, after the weekday and comma.
        mutating func imfFixdate() -> Fields? {
            guard let day = number(digits: 1...2), skip(UInt8(ascii: " ")), let month = month(), skip(UInt8(ascii: " ")),
                  let year = number(digits: 4...4), skip(UInt8(ascii: " ")), let (hour, minute, second) = time(),
                  skip(UInt8(ascii: " ")), gmt()
            else { return nil }
            return Fields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        /// `06-Nov-94 08:49:37 GMT`: a two-digit year is 1970 to 2069.
        mutating func rfc850() -> Fields? {
            guard let day = number(digits: 2...2), skip(UInt8(ascii: "-")), let month = month(), skip(UInt8(ascii: "-")),
                  let shortYear = number(digits: 2...2), skip(UInt8(ascii: " ")), let (hour, minute, second) = time(),
                  skip(UInt8(ascii: " ")), gmt()
            else { return nil }
            let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
            return Fields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }

        /// `Nov  6 08:49:37 1994`, after the weekday.
        mutating func asctime() -> Fields? {
            skipSpaces()
            guard let month = month() else { return nil }
            skipSpaces()
            guard let day = number(digits: 1...2), skip(UInt8(ascii: " ")), let (hour, minute, second) = time(),
                  skip(UInt8(ascii: " ")), let year = number(digits: 4...4)
            else { return nil }
            return Fields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
    }
}
