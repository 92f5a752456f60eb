import Courier
import Foundation

/// The `Cache-Control` directives the cache acts on, parsed from a header
/// field value (RFC 9111, section 5.2), and the names a `Vary` field lists.
///
/// This file and `CacheFileFormat` are the cache's parsers of outside
/// input. They use nothing of `CourierCache` beyond `CachedResponse` and
/// `CacheStatus`, so the fuzz harnesses compile them without swift-crypto.
struct CacheControl: Equatable {
    var maxAge: TimeInterval?
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    var staleIfError: TimeInterval?
    var staleWhileRevalidate: TimeInterval?

    init(_ header: String?) {
        guard let header else { return }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let argument = parts.count > 1
                ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                : nil
            let seconds = argument.flatMap(Self.deltaSeconds)
            switch name {
            // An invalid max-age makes the response stale (RFC 9111, 4.2.1).
            case "max-age": maxAge = seconds ?? 0
            case "no-store": noStore = true
            // `no-cache="field"` restricts only some fields; treating it as a
            // plain no-cache is the safe reading.
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "private": isPrivate = true
            case "stale-if-error": staleIfError = seconds
            case "stale-while-revalidate": staleWhileRevalidate = seconds
            default: continue
            }
        }
    }

    /// A delta-seconds value (RFC 9111, 1.2.2): ASCII digits only — no sign,
    /// fraction or exponent — and anything above 2³¹ counts as 2³¹.
    static func deltaSeconds(_ text: some StringProtocol) -> TimeInterval? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let cap = 2_147_483_648
        var value = 0
        for digit in digits { value = min(cap, value * 10 + Int(digit - 0x30)) }
        return TimeInterval(value)
    }

    /// The field names of a `Vary` header field value (RFC 9110, 12.5.5),
    /// lower-cased; `["*"]` means the response varies on everything and
    /// cannot be cached.
    static func varyNames(_ header: String?) -> [String] {
        guard let header else { return [] }
        return header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }
}
