import Foundation

extension URL {
    /// The host as written (still percent-encoded), or `nil` when there is
    /// none or it does not decode (`http://%FF/`). Decoding is only paid for
    /// a host that has a `%` in it: this runs for every request.
    var checkedHost: String? {
        guard let host = host(percentEncoded: true) else { return nil }
        guard host.utf8.contains(UInt8(ascii: "%")) else { return host }
        return self.host == nil ? nil : host
    }

    /// Whether this is an absolute `http` or `https` URL whose host is
    /// written in ASCII letters, digits, dots and hyphens, with or without a
    /// port: the usual URL, told from its string instead of asking
    /// Foundation for its scheme and host (which parses them again, a few
    /// hundred nanoseconds on every request). `false` says only that those
    /// full checks must decide.
    var isPlainHTTPWithHost: Bool {
        let string = absoluteString
        guard let prefix = Self.httpSchemePrefixLength(string) else { return false }
        var rest = string.utf8.dropFirst(prefix)
        let host = rest.prefix { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
        guard !host.isEmpty else { return false }
        rest = rest.dropFirst(host.count)
        if rest.first == UInt8(ascii: ":") {
            rest = rest.dropFirst().drop { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard let next = rest.first else { return true }
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
    }

    /// The length of `http://` or `https://`, in any letter case, at the
    /// start of `string`; `nil` when it starts otherwise.
    static func httpSchemePrefixLength(_ string: String) -> Int? {
        var bytes = string.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return nil }
        }
        var length = 4
        var next = bytes.next()
        if next.map({ $0 | 0x20 }) == UInt8(ascii: "s") {
            length += 1
            next = bytes.next()
        }
        guard next == UInt8(ascii: ":"), bytes.next() == UInt8(ascii: "/"), bytes.next() == UInt8(ascii: "/") else {
            return nil
        }
        return length + 3
    }
}
