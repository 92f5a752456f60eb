import Foundation

/// Watches the idle time-outs and deadlines of every transfer of one provider
/// with one timer, armed for the earliest possible expiry.
///
/// Starting and ending a watch only takes a lock; the timer is re-armed only
/// when a new watch could expire before it fires. A timer or a sleeping task
/// per request would cost thread wake-ups on every request.
final class Watchdog: Sendable {
    private struct Watched {
        let control: TransferControl
        let idleLimit: UInt64
        let idleSeconds: TimeInterval
        let deadline: (at: UInt64, seconds: TimeInterval)?
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        var nextID = 0
        var armedFor: UInt64?
    }

    private let queue = DispatchQueue(label: "Courier.Watchdog")
    private let state = Locked(State())

    /// Stops `control`'s transfer when nothing moved for `idleTimeout` seconds
    /// or at `deadline` (uptime nanoseconds), until ``unwatch(_:)``.
    func watch(_ control: TransferControl, idleTimeout: TimeInterval, deadline: (at: UInt64, seconds: TimeInterval)?) -> Int {
        let idleLimit = Self.nanoseconds(idleTimeout)
        let watched = Watched(control: control, idleLimit: idleLimit, idleSeconds: idleTimeout, deadline: deadline)
        let expiry = min(control.lastActivity &+ idleLimit, deadline?.at ?? .max)
        let (id, arm) = state.withLock { state in
            state.nextID += 1
            state.watched[state.nextID] = watched
            guard state.armedFor.map({ expiry < $0 }) ?? true else { return (state.nextID, false) }
            state.armedFor = expiry
            return (state.nextID, true)
        }
        if arm { self.arm(for: expiry) }
        return id
    }

    func unwatch(_ id: Int) {
        state.withLock { _ = $0.watched.removeValue(forKey: id) }
    }

    /// Seconds as nanoseconds: at least a millisecond, at most a century, so no
    /// value (NaN and infinity included) can trap.
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard !seconds.isNaN else { return 60_000_000_000 }
        return UInt64(min(max(0.001, seconds), 3_155_760_000) * 1_000_000_000)
    }

    private func arm(for expiry: UInt64) {
        // Weakly: a provider that is gone takes its watchdog with it; a
        // streamed body still being read holds it as long as it needs it.
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: expiry)) { [weak self] in self?.sweep() }
    }

    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        var expired: [(TransferControl, TransferTimeout)] = []
        let rearm: UInt64? = state.withLock { state in
            var earliest: UInt64?
            for (id, watched) in state.watched {
                let activity = watched.control.activity
                // A transfer that does not wait on the server now cannot be
                // idle; it is looked at again an idle time-out from now.
                let idleExpiry = (activity.waitsOnServer ? activity.last : now) &+ watched.idleLimit
                if let deadline = watched.deadline, deadline.at <= now {
                    expired.append((watched.control, .deadline(deadline.seconds)))
                    state.watched[id] = nil
                } else if idleExpiry <= now {
                    expired.append((watched.control, .idle(watched.idleSeconds)))
                    state.watched[id] = nil
                } else {
                    let expiry = min(idleExpiry, watched.deadline?.at ?? .max)
                    earliest = min(earliest ?? expiry, expiry)
                }
            }
            if let armed = state.armedFor, armed <= now { state.armedFor = nil }
            guard let earliest, state.armedFor.map({ earliest < $0 }) ?? true else { return nil }
            state.armedFor = earliest
            return earliest
        }
        if let rearm { arm(for: rearm) }
        for (control, timeout) in expired { control.abort(.timedOut(timeout)) }
    }
}
