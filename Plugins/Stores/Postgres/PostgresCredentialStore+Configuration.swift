import Foundation

extension PostgresCredentialStore {
    /// A store's timings and failure handler.
    public struct Configuration: Sendable {
        /// How long a refresh may hold the fleet's lock, and how long a
        /// process waits for it, in seconds. Give it the value of the
        /// `AuthPlugin`'s own `refreshTimeout`. Defaults to 60.
        public var refreshTimeout: TimeInterval
        /// How often ``PostgresCredentialStore/run()`` reloads the row.
        /// Defaults to one second.
        public var pollInterval: Duration
        /// Called with the error of a background write (``PostgresCredentialStore/save(_:)``,
        /// ``PostgresCredentialStore/clear()``) that failed; the copy in
        /// memory is kept. Defaults to `nil` (not reported).
        public var onWriteFailure: (@Sendable (any Error) -> Void)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - refreshTimeout: The longest refresh, and the longest wait for
        ///     another process's, in seconds.
        ///   - pollInterval: How often the row is reloaded.
        ///   - onWriteFailure: Called when a background write failed.
        public init(
            refreshTimeout: TimeInterval = 60,
            pollInterval: Duration = .seconds(1),
            onWriteFailure: (@Sendable (any Error) -> Void)? = nil
        ) {
            self.refreshTimeout = refreshTimeout.isFinite && refreshTimeout > 0 ? refreshTimeout : 60
            self.pollInterval = pollInterval > .zero ? pollInterval : .seconds(1)
            self.onWriteFailure = onWriteFailure
        }
    }
}
