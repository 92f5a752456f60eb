import Foundation

extension URL {
    /// `appendingPathComponent(path)`, without its cost in the common case.
    ///
    /// Foundation's `appendingPathComponent` percent-encodes the component,
    /// infers from the path (and for a file URL from the file system) whether
    /// it names a directory, and rebuilds the URL from its parts: about 2 µs
    /// a call on Linux, the largest single cost of building a request. For an
    /// `http` or `https` base URL without a query or fragment and a path of
    /// unreserved characters and slashes, nothing needs encoding and nothing
    /// is a file, and the result is the joined string parsed once, at about a
    /// third of the cost, and a pair joined before is not parsed again (see
    /// ``JoinedURLs``). Everything else goes to `appendingPathComponent`.
    /// The tests hold the two equal for every such pair they make.
    func appendingPathComponentQuickly(_ path: String) -> URL {
        var base = absoluteString
        var plainPath = path
        guard base.withUTF8(Self.isPlainHTTPBase), plainPath.withUTF8(Self.isPlainPath) else {
            return appendingPathComponent(path)
        }
        let key = JoinedURLs.Key(base: base, path: path)
        if let url = JoinedURLs.cache.withLock({ $0[key] }) {
            return url
        }
        switch (base.utf8.last == UInt8(ascii: "/"), path.utf8.first == UInt8(ascii: "/")) {
        case (true, true): base += path.dropFirst()
        case (false, false): base += "/" + path
        default: base += path
        }
        guard let url = URL(string: base) else { return appendingPathComponent(path) }
        JoinedURLs.cache.withLock { cache in
            if cache.count >= JoinedURLs.capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = url
        }
        return url
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

/// The URLs joined so far, by base URL and path: parsing the joined string
/// is still the largest single cost of building a request (about half a
/// microsecond), and an API's calls repeat a few paths, which a lookup finds
/// in a tenth of that. At most `capacity` entries, shared by every provider;
/// when full it starts again empty, so paths that never repeat (an ID in
/// each) cost one lookup and one insertion each and no memory beyond that.
enum JoinedURLs {
    struct Key: Hashable {
        let base: String
        let path: String
    }

    static let capacity = 256
    static let cache = Locked<[Key: URL]>([:])
}
