import Foundation

/// An async latch: tasks that `wait()` stay suspended until `open()`. Tests use
/// it to hold a server response for as long as they choose, instead of
/// sleeping and hoping.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Suspends until the gate is open (returns at once if it already is), or
    /// until the waiting task is cancelled, so a server shutting down never
    /// waits on a gate a failed test left closed.
    public func wait() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Opens the gate and releases every waiter.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Thrown when a condition a test waits for does not come true in time.
public struct ConditionTimedOut: Error, CustomStringConvertible {
    public let description: String
}

/// Waits until `condition` holds, checking every few milliseconds, and throws
/// if it has not within `seconds`. For state that has no event to await.
public func waitUntil(
    _ what: String,
    within seconds: Double = 120,
    _ condition: @Sendable () -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { throw ConditionTimedOut(description: "timed out waiting until \(what)") }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

/// Runs `body`, failing with `ConditionTimedOut` if it takes longer than
/// `seconds`: a safety net so a broken test fails instead of hanging (generous,
/// because under the thread sanitizer everything runs many times slower). The work
/// is cancelled and abandoned at the deadline, even if it ignores cancellation
/// (a task group would wait for it forever).
@discardableResult
public func withDeadline<T: Sendable>(
    _ seconds: Double = 120,
    _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let finished = Mutex(false)
        let resumeOnce: @Sendable (Result<T, any Error>) -> Bool = { result in
            let first = finished.withLock { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(with: result) }
            return first
        }
        let work = Task {
            do {
                _ = resumeOnce(.success(try await body()))
            } catch {
                _ = resumeOnce(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            if resumeOnce(.failure(ConditionTimedOut(description: "\(what) took longer than \(seconds) s"))) {
                work.cancel()
            }
        }
    }
}
