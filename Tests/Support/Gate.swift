import Foundation

/// An async latch: tasks that `wait()` stay suspended until `open()`. Tests use
/// it to hold a server response for as long as they choose, instead of
/// sleeping and hoping.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Suspends until the gate is open (returns at once if it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    /// Opens the gate and releases every waiter.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
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
    within seconds: Double = 10,
    _ condition: @Sendable () -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { throw ConditionTimedOut(description: "timed out waiting until \(what)") }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

/// Runs `body`, failing with `ConditionTimedOut` if it takes longer than
/// `seconds`: a safety net so a broken test fails instead of hanging.
public func withDeadline<T: Sendable>(
    _ seconds: Double = 20,
    _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            throw ConditionTimedOut(description: "\(what) took longer than \(seconds) s")
        }
        guard let first = try await group.next() else {
            throw ConditionTimedOut(description: "\(what) produced nothing")
        }
        group.cancelAll()
        return first
    }
}
