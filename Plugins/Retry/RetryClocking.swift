import Foundation

/// The time source of ``RetryPlugin``: what time it is, and waiting.
///
/// Inject your own to test retries without waiting: `sleep(for:)` can record
/// the delay and return at once.
///
/// ## Implementation requirements
/// - `sleep(for:)` throws `CancellationError` as soon as the calling task is
///   cancelled, so a cancelled request does not sit out its back-off.
/// - Safe to call from many tasks at once.
public protocol RetryClocking: Sendable {
    /// The current wall-clock time (HTTP-date `Retry-After` values are
    /// measured against it).
    var now: Date { get }

    /// Waits `seconds`.
    /// - Parameter seconds: How long to wait; zero or less returns at once.
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(for seconds: TimeInterval) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemRetryClock: RetryClocking {
    /// Creates the clock.
    public init() {}

    /// The system's wall-clock time.
    public var now: Date { Date() }

    /// Waits with `Task.sleep`, which ends at once when the task is cancelled.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for seconds: TimeInterval) async throws {
        guard seconds > 0 else {
            try Task.checkCancellation()
            return
        }
        // `UInt64(_:)` traps beyond its range: an absurd wait (a huge
        // Retry-After, infinity) becomes the longest one there is, which a
        // cancellation still ends.
        let nanoseconds = seconds * 1_000_000_000
        try await Task.sleep(nanoseconds: nanoseconds < Double(UInt64.max) ? UInt64(nanoseconds) : UInt64.max)
    }
}
