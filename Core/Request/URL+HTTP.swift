import Foundation

// What Courier reads and builds of an HTTP URL, on every request: its host,
// told from its string where it can be; a path joined to a base URL without
// Foundation's general machinery; and whether two URLs share an origin.

// MARK: - Host

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

// MARK: - Path

extension URL {
    /// `appendingPathComponent(path)`, without its cost in the common case.
    ///
    /// Foundation's `appendingPathComponent` percent-encodes the component,
    /// infers from the path (and for a file URL from the file system) whether
    /// it names a directory, and rebuilds the URL from its parts; it is the
    /// largest single cost of building a request. For an `http` or `https`
    /// base URL without a query or fragment and a path of unreserved
    /// characters and slashes, nothing needs encoding and nothing is a file,
    /// so the joined string is parsed once instead. Everything else goes to
    /// `appendingPathComponent`. The tests hold the two equal for every such
    /// pair they make.
    func appendingPathComponentQuickly(_ path: String) -> URL {
        var base = absoluteString
        var plainPath = path
        guard base.withUTF8(Self.isPlainHTTPBase), plainPath.withUTF8(Self.isPlainPath) else {
            return appendingPathComponent(path)
        }
        switch (base.utf8.last == UInt8(ascii: "/"), path.utf8.first == UInt8(ascii: "/")) {
        case (true, true): base += path.dropFirst()
        case (false, false): base += "/" + path
        default: base += path
        }
        return URL(string: base) ?? appendingPathComponent(path)
    }

    /// An absolute `http://` or `https://` URL (any letter case) with an
    /// authority and without a query or fragment. (Joined to `http://`, a path
    /// would become the host.)
    private static func isPlainHTTPBase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let prefix = httpSchemePrefixLength(bytes), prefix < bytes.count, bytes[prefix] != UInt8(ascii: "/") else {
            return false
        }
        return !bytes[prefix...].contains { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
    }

    /// A path of ASCII letters, digits, `-`, `_`, `.`, `~` and `/` only.
    private static func isPlainPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}

// MARK: - Origin

extension URL {
    /// Whether `other` has the same origin as this URL: the same scheme and
    /// host, in any letter case, and the same port (80 and 443 when not
    /// written, for `http` and `https`).
    ///
    /// The transfer stage drops credentials on a redirect that changes the
    /// origin; plugins use the same rule to tell an answer from the origin
    /// they sent a request to from one a redirect reached elsewhere.
    ///
    /// ```swift
    /// let sent = URL(string: "https://api.example.com/feed")!
    /// sent.hasSameOrigin(as: URL(string: "https://API.example.com:443/v2")!) // true
    /// sent.hasSameOrigin(as: URL(string: "https://cdn.example.com/feed")!)   // false
    /// ```
    /// - Parameter other: The URL to compare with.
    /// - Returns: `true` when scheme, host and port all match.
    public func hasSameOrigin(as other: URL) -> Bool {
        Origin.same(self, other)
    }
}
