import Courier
import Foundation

extension AuthPlugin {
    /// How ``AuthPlugin`` decides which requests carry the token, when it
    /// refreshes, and when it stops.
    public struct Configuration: Sendable {
        /// The scheme for targets that do not conform to
        /// ``AccessTokenAuthorizable``; `nil` (the default, as in Moya) sends
        /// them no token, so only targets that ask for one get it.
        public var defaultAuthorizationType: AuthorizationType?
        /// The status codes that mean "the token was refused": refresh and
        /// replay once. Defaults to 401.
        public var refreshStatusCodes: Set<Int>
        /// Seconds before the expiry date from which a token counts as expired
        /// and is refreshed before sending. Defaults to 30. For a credential
        /// whose lifetime is known, at most half that lifetime is used, so a
        /// token that lives less than the leeway is not expired at birth.
        public var leeway: TimeInterval
        /// At most this many refreshes in `refreshWindow` seconds; one more
        /// fails with ``AuthPlugin/Failure/refreshLimitExceeded(refreshes:seconds:)``.
        /// Defaults to 5.
        public var maximumRefreshes: Int
        /// The window for `maximumRefreshes`, in seconds. Defaults to 30; a
        /// window that is not a positive number is read as 30, and one longer
        /// than a billion seconds (infinity included) as a billion.
        public var refreshWindow: TimeInterval
        /// How long one refresh may take, in seconds, before the waiting
        /// requests fail with ``AuthPlugin/Failure/refreshFailed(_:)`` holding
        /// `NetworkError.timedOut` (the credential is kept). Defaults to 60.
        public var refreshTimeout: TimeInterval
        /// The wall clock, for expiry dates: inject one in tests instead of
        /// waiting.
        public var now: @Sendable () -> Date
        /// Seconds on a clock that only moves forward, for the refresh window:
        /// the wall clock jumps when the device's time is changed. Inject one
        /// in tests instead of waiting.
        public var uptime: @Sendable () -> TimeInterval
        /// Called with the store's error when a renewed credential could not
        /// be saved. The waiting requests still get the renewed credential,
        /// and the plugin keeps using it until the store holds another one;
        /// only the next launch loses it. Defaults to `nil` (not reported).
        public var onStoreFailure: (@Sendable (any Error) -> Void)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - defaultAuthorizationType: The scheme for targets that are not
        ///     ``AccessTokenAuthorizable``; `nil` for none.
        ///   - refreshStatusCodes: The statuses that trigger a refresh and a
        ///     replay.
        ///   - leeway: Seconds before expiry from which the token is refreshed
        ///     before sending.
        ///   - maximumRefreshes: How many refreshes `refreshWindow` allows.
        ///   - refreshWindow: The window, in seconds.
        ///   - refreshTimeout: How long one refresh may take, in seconds.
        ///   - now: The wall clock, for expiry dates.
        ///   - uptime: A clock that only moves forward, for the refresh window.
        ///   - onStoreFailure: Called when a renewed credential could not be
        ///     saved; the renewed credential is used all the same.
        public init(
            defaultAuthorizationType: AuthorizationType? = nil,
            refreshStatusCodes: Set<Int> = [401],
            leeway: TimeInterval = 30,
            maximumRefreshes: Int = 5,
            refreshWindow: TimeInterval = 30,
            refreshTimeout: TimeInterval = 60,
            now: @escaping @Sendable () -> Date = { Date() },
            uptime: @escaping @Sendable () -> TimeInterval = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
            onStoreFailure: (@Sendable (any Error) -> Void)? = nil
        ) {
            self.defaultAuthorizationType = defaultAuthorizationType
            self.refreshStatusCodes = refreshStatusCodes
            self.leeway = leeway
            self.maximumRefreshes = maximumRefreshes
            // An infinite window means "never forget a refresh": a billion
            // seconds is as good, and stays a number every description can print.
            self.refreshWindow = refreshWindow.isNaN || refreshWindow <= 0 ? 30 : min(refreshWindow, 1e9)
            self.refreshTimeout = refreshTimeout.isFinite && refreshTimeout > 0 ? refreshTimeout : 60
            self.now = now
            self.uptime = uptime
            self.onStoreFailure = onStoreFailure
        }
    }
}
