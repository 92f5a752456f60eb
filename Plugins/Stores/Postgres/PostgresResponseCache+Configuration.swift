import CourierCache
import Foundation

extension PostgresResponseCache {
    /// Limits, lifetime and time-outs of a ``PostgresResponseCache``.
    public struct Configuration: Sendable {
        /// The most bytes of entries kept, counted as `CachedResponse.cost`;
        /// past it the least recently used go. Defaults to 100 MiB.
        public var sizeLimit: Int
        /// How long an entry stored without an expiry lives, or `nil` for
        /// until it is trimmed.
        public var defaultLifetime: TimeInterval?
        /// The longest a read, `removeEntry(forKey:)` or `removeAll()` makes
        /// its caller wait; then it is a miss (or not done). Defaults to
        /// 100 milliseconds.
        public var timeout: Duration
        /// The longest a background write may take before it is abandoned.
        /// Defaults to 2 seconds.
        public var writeTimeout: Duration
        /// After a failure or a time-out, calls are misses without asking the
        /// database for this long; then one call tries again. Defaults to one
        /// second.
        public var retryInterval: Duration
        /// The most background writes waiting; more are dropped. Defaults to 64.
        public var maximumPendingWrites: Int
        /// The current time, for expiry and recency.
        public var clock: CacheClock

        /// Creates a configuration.
        /// - Parameters:
        ///   - sizeLimit: The most bytes kept.
        ///   - defaultLifetime: The lifetime of entries stored without an
        ///     expiry; `nil` keeps them until trimmed.
        ///   - timeout: The longest a caller waits.
        ///   - writeTimeout: The longest a background write takes.
        ///   - retryInterval: How long to stop asking after a failure.
        ///   - maximumPendingWrites: The most writes waiting.
        ///   - clock: The current time.
        public init(
            sizeLimit: Int = 100 * 1024 * 1024,
            defaultLifetime: TimeInterval? = nil,
            timeout: Duration = .milliseconds(100),
            writeTimeout: Duration = .seconds(2),
            retryInterval: Duration = .seconds(1),
            maximumPendingWrites: Int = 64,
            clock: @escaping CacheClock = { Date() }
        ) {
            self.sizeLimit = max(0, sizeLimit)
            self.defaultLifetime = defaultLifetime
            self.timeout = max(timeout, .zero)
            self.writeTimeout = max(writeTimeout, .zero)
            self.retryInterval = max(retryInterval, .zero)
            self.maximumPendingWrites = max(1, maximumPendingWrites)
            self.clock = clock
        }
    }
}
