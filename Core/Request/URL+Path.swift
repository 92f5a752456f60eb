import Foundation

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
