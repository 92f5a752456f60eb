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
    /// Foundation for its scheme and host (which parses them again on every
    /// request). `false` says only that those full checks must decide.
    var isPlainHTTPWithHost: Bool {
        var string = absoluteString
        return string.withUTF8 { bytes in
            guard var index = Self.httpSchemePrefixLength(bytes) else { return false }
            let hostStart = index
            while index < bytes.count, Self.isHostByte(bytes[index]) { index += 1 }
            guard index > hostStart else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            }
            guard index < bytes.count else { return true }
            return bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#")
        }
    }

    /// The length of `http://` or `https://`, in any letter case, at the
    /// start of `bytes`; `nil` when they start otherwise.
    static func httpSchemePrefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 7, bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"),
              bytes[2] | 0x20 == UInt8(ascii: "t"), bytes[3] | 0x20 == UInt8(ascii: "p")
        else { return nil }
        let colon = bytes[4] | 0x20 == UInt8(ascii: "s") ? 5 : 4
        guard bytes.count >= colon + 3, bytes[colon] == UInt8(ascii: ":"), bytes[colon + 1] == UInt8(ascii: "/"),
              bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        return colon + 3
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
