import Courier
import Foundation

/// Keeps responses in memory, dropping the least recently used when there are
/// more than `Configuration/countLimit` entries or more than
/// `Configuration/costLimit` bytes. Thread-safe.
///
/// ```swift
/// let memory = MemoryResponseCache(configuration: .init(countLimit: 500, costLimit: 20 << 20))
/// let provider = Provider<API>(plugins: [CachePlugin(storage: memory)])
/// ```
public final class MemoryResponseCache: ResponseCaching {
    /// Limits and lifetime of a memory store.
    public struct Configuration: Sendable {
        /// The most entries kept.
        public var countLimit: Int
        /// The most bytes kept (see ``CachedResponse/cost``).
        public var costLimit: Int
        /// How long an entry stored without an expiry lives, or `nil` for
        /// until it is trimmed.
        public var defaultLifetime: TimeInterval?
        /// The current time, for expiry.
        public var clock: CacheClock

        /// Creates a configuration.
        /// - Parameters:
        ///   - countLimit: The most entries kept.
        ///   - costLimit: The most bytes kept.
        ///   - defaultLifetime: The lifetime of entries stored without an
        ///     expiry; `nil` keeps them until trimmed.
        ///   - clock: The current time.
        public init(
            countLimit: Int = 1_000,
            costLimit: Int = 50 * 1024 * 1024,
            defaultLifetime: TimeInterval? = nil,
            clock: @escaping CacheClock = { Date() }
        ) {
            self.countLimit = countLimit
            self.costLimit = costLimit
            self.defaultLifetime = defaultLifetime
            self.clock = clock
        }
    }

    /// The entries in order of last use: one hash of the key per hit.
    private typealias State = LRUIndex<String, CachedResponse>

    /// The limits and lifetime this store was created with.
    public let configuration: Configuration
    private let state = Locked(State())

    /// Creates an empty memory store.
    /// - Parameter configuration: Limits and lifetime.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// How many entries are held.
    public var count: Int { state.withLock { $0.count } }

    /// How many bytes the entries hold (see ``CachedResponse/cost``).
    public var totalCost: Int { state.withLock { $0.totalCost } }

    // MARK: - ResponseCaching

    /// The entry for `key`, unless it has expired; marks it as recently used.
    public func entry(forKey key: String) -> CachedResponse? {
        state.withLock { state in
            guard let (entry, slot) = state.entry(key) else { return nil }
            // The clock only for entries that can expire.
            if entry.expiresAt != nil, entry.isExpired(at: configuration.clock()) {
                state.remove(key)
                return nil
            }
            state.touch(slot: slot)
            return entry
        }
    }

    /// Stores `entry` under `key` as the most recently used, then evicts the
    /// least recently used entries beyond the count and cost limits. An entry
    /// costlier than the whole cost limit is not stored.
    public func store(_ entry: CachedResponse, forKey key: String) {
        var entry = entry
        if entry.expiresAt == nil, let lifetime = configuration.defaultLifetime {
            entry.expiresAt = entry.storedAt.addingTimeInterval(lifetime)
        }
        let cost = entry.cost
        state.withLock { state in
            state.remove(key)
            guard cost <= configuration.costLimit, configuration.countLimit > 0 else { return }
            state.insert(key, value: entry, cost: cost)
            while state.count > configuration.countLimit || state.totalCost > configuration.costLimit,
                  let victim = state.leastRecent {
                state.remove(victim)
            }
        }
    }

    /// Removes the entry for `key`.
    public func removeEntry(forKey key: String) {
        state.withLock { state in
            state.remove(key)
        }
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { state in
            state.removeAll()
        }
    }
}
