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

    private struct State {
        var entries: [String: CachedResponse] = [:]
        var order = LRUIndex<String>()
    }

    /// The limits and lifetime.
    public let configuration: Configuration
    private let state = Locked(State())

    /// Creates an empty memory store.
    /// - Parameter configuration: Limits and lifetime.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// How many entries are held.
    public var count: Int { state.withLock { $0.entries.count } }

    /// How many bytes the entries hold (see ``CachedResponse/cost``).
    public var totalCost: Int { state.withLock { $0.order.totalCost } }

    // MARK: - ResponseCaching

    /// The entry for `key`, unless it has expired; marks it as recently used.
    public func entry(forKey key: String) -> CachedResponse? {
        let now = configuration.clock()
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if entry.isExpired(at: now) {
                state.entries[key] = nil
                state.order.remove(key)
                return nil
            }
            state.order.touch(key)
            return entry
        }
    }

    /// Stores `entry`, then drops the least recently used entries beyond the limits.
    public func store(_ entry: CachedResponse, forKey key: String) {
        var entry = entry
        if entry.expiresAt == nil, let lifetime = configuration.defaultLifetime {
            entry.expiresAt = entry.storedAt.addingTimeInterval(lifetime)
        }
        let cost = entry.cost
        state.withLock { state in
            state.entries[key] = nil
            state.order.remove(key)
            guard cost <= configuration.costLimit, configuration.countLimit > 0 else { return }
            state.entries[key] = entry
            state.order.insert(key, cost: cost)
            while state.order.count > configuration.countLimit || state.order.totalCost > configuration.costLimit,
                  let victim = state.order.leastRecent {
                state.order.remove(victim)
                state.entries[victim] = nil
            }
        }
    }

    /// Removes the entry for `key`.
    public func removeEntry(forKey key: String) {
        state.withLock { state in
            state.entries[key] = nil
            state.order.remove(key)
        }
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { state in
            state.entries = [:]
            state.order.removeAll()
        }
    }
}
