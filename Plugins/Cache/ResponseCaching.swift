import Courier
import Foundation

/// A place to keep ``CachedResponse``s by key: in memory, on disk, or both.
///
/// ``CachePlugin`` reads and writes through this protocol, so any store works
/// with it: ``MemoryResponseCache``, ``DiskResponseCache``,
/// ``TieredResponseCache``, or your own.
///
/// ## Implementation requirements
/// - Every method is called from many tasks at once: be thread-safe, and let
///   a reader see either no entry or a whole one, never half of one.
/// - Treat an entry whose ``CachedResponse/expiresAt`` has passed as absent
///   (and drop it).
/// - Never throw or crash on bad stored data: an entry that cannot be read is
///   a miss.
public protocol ResponseCaching: Sendable {
    /// The entry stored for `key`, or `nil` when there is none (or it has
    /// expired or could not be read).
    /// - Parameter key: The key, usually from ``CacheKey``.
    /// - Returns: The whole entry, or `nil`.
    func entry(forKey key: String) -> CachedResponse?

    /// Stores `entry` under `key`, replacing what was there.
    /// - Parameters:
    ///   - entry: The response and its metadata.
    ///   - key: The key, usually from ``CacheKey``.
    func store(_ entry: CachedResponse, forKey key: String)

    /// Removes the entry for `key`, if there is one.
    func removeEntry(forKey key: String)

    /// Removes every entry.
    func removeAll()

    /// The digest, in hex, that ``CachePlugin`` puts in keys and entries in
    /// place of a value that may be secret: an identity header field's value
    /// (`Authorization`), a request body, a value a response varies on.
    ///
    /// The default is the value's SHA-256, enough for a store that never
    /// leaves the process. A store whose contents others may read later gives
    /// a keyed hash, so that its files or rows cannot be used to test guesses
    /// of a password offline: ``DiskResponseCache`` uses HMAC-SHA256 under a
    /// random key of its own. Equal values must give equal digests for the
    /// store's whole life, across processes that share it.
    /// - Parameter value: The secret's bytes.
    /// - Returns: The digest in lower-case hex.
    func fingerprint(of value: Data) -> String
}

extension ResponseCaching {
    /// The SHA-256 of `value`, in lower-case hex.
    public func fingerprint(of value: Data) -> String {
        CacheDigest.hex(value)
    }
}

/// Tells a store what time it is. Inject a fixed or stepping clock in tests so
/// expiry needs no sleeping.
///
/// ```swift
/// let now = Mutex(Date())
/// let cache = MemoryResponseCache(configuration: .init(clock: { now.withLock { $0 } }))
/// ```
public typealias CacheClock = @Sendable () -> Date
