import Courier
import Foundation

extension RetryPlugin {
    /// When to retry and how long to wait.
    ///
    /// The wait before retry `n` (1 for the first) is a random time between 0
    /// and `min(maximumDelay, initialDelay × multiplier^(n-1))` ("full
    /// jitter", so clients that failed together do not come back together),
    /// unless the response says `Retry-After`.
    public struct Configuration: Sendable {
        /// The most transmissions in all, the first one included.
        public var maximumAttempts: Int
        /// The upper bound of the first back-off, in seconds.
        public var initialDelay: TimeInterval
        /// How much the upper bound grows with each retry.
        public var multiplier: Double
        /// The largest back-off, in seconds, and the longest `Retry-After`
        /// waited for: a longer one lets its response stand.
        public var maximumDelay: TimeInterval
        /// The most seconds the call may take, waits included: a retry whose
        /// wait would end past it is not made, and the last result stands.
        public var timeBudget: TimeInterval
        /// The status codes worth another try.
        public var retryableStatusCodes: Set<Int>
        /// Whether a `Retry-After` header (seconds or an HTTP date) sets the
        /// wait instead of the back-off.
        public var honoursRetryAfter: Bool
        /// Which failures to retry: time-outs and lost connections by default.
        public var retriesError: @Sendable (NetworkError) -> Bool
        /// The clock that tells the time and waits.
        public var clock: any RetryClocking
        /// A random number in `0..<1` for the jitter.
        public var random: @Sendable () -> Double

        /// Creates a configuration.
        /// - Parameters:
        ///   - maximumAttempts: Transmissions in all, at least 1.
        ///   - initialDelay: The first back-off's upper bound, in seconds.
        ///   - multiplier: The growth of the upper bound per retry.
        ///   - maximumDelay: The largest back-off and `Retry-After`, in seconds.
        ///   - timeBudget: The most seconds the whole call may take.
        ///   - retryableStatusCodes: Status codes worth another try.
        ///   - honoursRetryAfter: Whether `Retry-After` sets the wait.
        ///   - retriesError: Which failures are worth another try.
        ///   - clock: The time source; inject one in tests.
        ///   - random: The jitter's source of numbers in `0..<1`.
        public init(
            maximumAttempts: Int = 3,
            initialDelay: TimeInterval = 0.5,
            multiplier: Double = 2,
            maximumDelay: TimeInterval = 30,
            timeBudget: TimeInterval = 60,
            retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
            honoursRetryAfter: Bool = true,
            retriesError: @escaping @Sendable (NetworkError) -> Bool = Configuration.isTransient,
            clock: any RetryClocking = SystemRetryClock(),
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
        ) {
            self.maximumAttempts = max(1, maximumAttempts)
            self.initialDelay = initialDelay
            self.multiplier = multiplier
            self.maximumDelay = maximumDelay
            self.timeBudget = timeBudget
            self.retryableStatusCodes = retryableStatusCodes
            self.honoursRetryAfter = honoursRetryAfter
            self.retriesError = retriesError
            self.clock = clock
            self.random = random
        }

        /// Whether `error` is a time-out or a lost connection, the failures
        /// that often go away on their own.
        /// - Parameter error: The failure of a transmission.
        /// - Returns: `true` for `.timedOut` and `.connectionLost`.
        @Sendable public static func isTransient(_ error: NetworkError) -> Bool {
            switch error {
            case .timedOut, .connectionLost: true
            default: false
            }
        }
    }

    /// A per-call override: `true` allows retrying this call whatever its
    /// method, `false` forbids it; `nil` (the default) leaves it to the
    /// method and the target.
    ///
    /// ```swift
    /// let options = RequestOptions().setting(RetryPlugin.AllowsRetry.self, to: false)
    /// ```
    public enum AllowsRetry: RequestOptionKey {
        /// `nil`: no override for this call.
        public static let defaultValue: Bool? = nil
    }
}
