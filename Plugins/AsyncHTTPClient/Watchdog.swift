import Courier
import Foundation
import NIOCore

/// When a transmission last sent or received anything, so an idle time-out
/// can fire; written by the transfer, read by the watchdog.
final class Activity: Sendable {
    private let lastActivity = Locked(NIODeadline.now().uptimeNanoseconds)

    /// Records that bytes moved just now.
    func touch() {
        let now = NIODeadline.now().uptimeNanoseconds
        lastActivity.withLock { $0 = now }
    }

    /// When bytes last moved (uptime nanoseconds).
    var lastActivityNanoseconds: UInt64 {
        lastActivity.withLock { $0 }
    }
}

/// A request was idle for longer than its time-out.
struct IdleTimeout: Error, CustomStringConvertible {
    let seconds: TimeInterval

    var description: String {
        "nothing was sent or received for \(seconds) s; raise the target's timeout if the server is slow"
    }
}

/// Runs a transmission under an idle time-out (whole or fractional seconds);
/// AsyncHTTPClient only offers a deadline that ends at the response head,
/// which would cut off a long upload that is still making progress and leave
/// a stalled download running.
///
/// The transfer runs in a task of its own (inheriting priority and task-local
/// values), so the time-out can cancel it without cancelling the caller. The
/// time-out itself is an ``IdleSweeper`` entry, not a sleeping task or a timer
/// per request: those cost thread wake-ups on every request, which the
/// benchmark measured as a quarter of the throughput at 64 concurrent requests.
enum Watchdog {
    static func run<Value: Sendable>(
        idleTimeout: TimeInterval,
        sweeper: IdleSweeper,
        _ body: @escaping @Sendable (Activity) async throws -> Value
    ) async throws -> Value {
        let activity = Activity()
        let transfer = Task { try await body(activity) }
        let timedOut = Locked(false)
        let watch = sweeper.watch(activity, idleTimeout: idleTimeout) {
            timedOut.withLock { $0 = true }
            transfer.cancel()
        }
        defer { sweeper.unwatch(watch) }
        do {
            return try await withTaskCancellationHandler {
                try await transfer.value
            } onCancel: {
                transfer.cancel()
            }
        } catch {
            if timedOut.withLock({ $0 }) { throw IdleTimeout(seconds: idleTimeout) }
            throw error
        }
    }
}

/// Watches the idle time-outs of every transfer of one transport with one
/// event-loop timer, armed for the earliest possible expiry.
///
/// Starting and ending a watch only takes a lock; the timer is re-armed only
/// when a new watch could expire before it fires. When it fires it ends the
/// transfers idle for their time-out and re-arms itself for the earliest of
/// the rest, so a busy transport wakes the event loop about once per time-out,
/// not twice per request.
final class IdleSweeper: Sendable {
    private struct Watched {
        let activity: Activity
        let limit: UInt64
        let onIdle: @Sendable () -> Void
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var nextID = 0
        /// When the earliest armed sweep runs (uptime nanoseconds).
        var armedFor: UInt64?
    }

    private let eventLoop: any EventLoop
    private let state = Locked(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Calls `onIdle` once when nothing has moved for `idleTimeout` seconds,
    /// until ``unwatch(_:)``.
    func watch(_ activity: Activity, idleTimeout: TimeInterval, onIdle: @escaping @Sendable () -> Void) -> Int {
        // At least a millisecond; at most a century, so the conversion cannot trap.
        let limit = UInt64(min(max(0.001, idleTimeout), 3_155_760_000) * 1_000_000_000)
        let expiry = NIODeadline.now().uptimeNanoseconds &+ limit
        let (id, needsArming) = state.withLock { state in
            state.nextID += 1
            state.watched[state.nextID] = Watched(activity: activity, limit: limit, onIdle: onIdle)
            guard state.armedFor.map({ expiry < $0 }) ?? true else { return (state.nextID, false) }
            state.armedFor = expiry
            return (state.nextID, true)
        }
        if needsArming { arm(for: expiry) }
        return id
    }

    /// Stops watching; the transfer has ended.
    func unwatch(_ id: Int) {
        state.withLock { _ = $0.watched.removeValue(forKey: id) }
    }

    private func arm(for expiry: UInt64) {
        eventLoop.scheduleTask(deadline: .uptimeNanoseconds(expiry)) { self.sweep() }
    }

    private func sweep() {
        let now = NIODeadline.now().uptimeNanoseconds
        var idle: [@Sendable () -> Void] = []
        let rearm: UInt64? = state.withLock { state in
            var earliest: UInt64?
            for (id, watched) in state.watched {
                let expiry = watched.activity.lastActivityNanoseconds &+ watched.limit
                if expiry <= now {
                    idle.append(watched.onIdle)
                    state.watched[id] = nil
                } else {
                    earliest = min(earliest ?? expiry, expiry)
                }
            }
            if let armed = state.armedFor, armed <= now { state.armedFor = nil }
            guard let earliest, state.armedFor.map({ earliest < $0 }) ?? true else { return nil }
            state.armedFor = earliest
            return earliest
        }
        if let rearm { arm(for: rearm) }
        for onIdle in idle { onIdle() }
    }
}
