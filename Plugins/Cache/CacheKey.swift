import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The key of a request's cache entry: the method, the whole URL with its
/// query, the digest of the body (for methods other than GET and HEAD), the
/// digest of each identity header field (`Authorization` by default, so two
/// users never share an entry and no token is written to disk), the target's
/// extras, and — for responses with `Vary` — the digests of the values of
/// the request header fields it names. The digests are the store's
/// ``ResponseCaching/fingerprint(of:)``: SHA-256 by default, keyed for a
/// store on disk.
///
/// Two requests that differ in any of these never share an entry.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The key without the `Vary` part: where a response's first variant is
    /// stored, and where a lookup starts.
    public let base: String

    /// Makes the key of `request`.
    /// - Parameters:
    ///   - request: The request as it will be sent.
    ///   - target: The target; a ``CacheableTarget`` may add extras or give
    ///     its own key.
    ///   - identityHeaderFields: Request header fields whose values (hashed)
    ///     are part of the key.
    ///   - fingerprint: The digest of a secret value (the store's
    ///     ``ResponseCaching/fingerprint(of:)``); SHA-256 when not given.
    /// - Returns: The key, or `nil` when the request has a streamed body that
    ///   cannot be fingerprinted.
    public static func make(
        for request: URLRequest,
        target: any TargetType,
        identityHeaderFields: [String] = ["Authorization"],
        fingerprint: ((Data) -> String)? = nil
    ) -> CacheKey? {
        let fingerprint = fingerprint ?? { CacheDigest.hex($0) }
        let cacheable = target as? any CacheableTarget
        let method = request.httpMethod ?? "GET"
        var parts: [String]
        if let own = cacheable?.cacheKey {
            parts = ["key", own]
        } else {
            parts = [method, request.url?.absoluteString ?? ""]
            if method != "GET" && method != "HEAD" {
                guard request.httpBodyStream == nil else { return nil }
                parts.append("body-sha256=" + fingerprint(request.httpBody ?? Data()))
            }
        }
        for field in identityHeaderFields.map({ $0.lowercased() }).sorted() {
            if let value = request.value(forHTTPHeaderField: field) {
                parts.append("\(field)-sha256=" + fingerprint(Data(value.utf8)))
            }
        }
        parts.append(contentsOf: cacheable?.cacheKeyExtras ?? [])
        return CacheKey(base: "v1" + encode(parts))
    }

    /// The key of the variant of this entry whose `Vary` fields have `values`
    /// (as ``CachedResponse/varyValues`` holds them: SHA-256 digests).
    public func varied(by values: [String: String]) -> String {
        guard !values.isEmpty else { return base }
        let pairs = values.keys.sorted().flatMap { [$0, values[$0] ?? ""] }
        return base + " vary" + Self.encode(pairs)
    }

    /// The key as text (the base key).
    public var description: String { base }

    /// The digests (`fingerprint`, hex) of the values in `request` of the
    /// header fields `names`, by lower-cased name; an absent field counts as
    /// empty.
    ///
    /// Only digests are kept and compared: a response that varies on
    /// `Authorization` or `Cookie` must not put the token into a cache file.
    static func varyValues(
        named names: some Sequence<String>, in request: URLRequest, fingerprint: (Data) -> String
    ) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            values[name.lowercased()] = fingerprint(Data((request.value(forHTTPHeaderField: name) ?? "").utf8))
        }
        return values
    }

    // Length-prefixing every part keeps the encoding unambiguous: no choice of
    // URL, body or extras can make two different lists read the same.
    private static func encode(_ parts: [String]) -> String {
        parts.map { " \($0.utf8.count):\($0)" }.joined()
    }
}
