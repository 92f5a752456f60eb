import CourierRetry
import CourierTestSupport
import Foundation

/// A clock whose sleeps return at once, recording the delay and moving its
/// time forward by it.
final class RecordingClock: RetryClocking {
    private let state: Mutex<(now: Date, delays: [TimeInterval])>

    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex((now, []))
    }

    var now: Date { state.withLock { $0.now } }
    var delays: [TimeInterval] { state.withLock { $0.delays } }

    func sleep(for seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.delays.append(seconds)
            $0.now += seconds
        }
    }
}

/// A clock whose sleep never ends by itself: it suspends until the task is
/// cancelled, and tells the test when a sleep has begun.
final class SuspendingClock: RetryClocking {
    private let started: AsyncStream<TimeInterval>.Continuation
    /// Yields the delay of each sleep as it begins.
    let sleeps: AsyncStream<TimeInterval>
    private let waiting = Mutex<[UUID: CheckedContinuation<Void, any Error>]>([:])

    init() {
        (sleeps, started) = AsyncStream.makeStream()
    }

    var now: Date { Date(timeIntervalSince1970: 1_800_000_000) }

    func sleep(for seconds: TimeInterval) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = waiting.withLock { waiting -> Bool in
                    if Task.isCancelled { return true }
                    waiting[id] = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    started.yield(seconds)
                }
            }
        } onCancel: {
            waiting.withLock { $0.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}
