import Foundation

/// The state of one transfer as its ``TransferControl`` sees it: running,
/// with the handlers that stop it and what moved when, or stopped for a
/// reason. Transitions return what the control must do outside its lock.
///
/// ```
/// running ──abort(reason) / a body past its limit──▶ stopped(reason)
/// ```
struct TransferControlStateMachine {
    typealias Handler = @Sendable () -> Void

    struct Running {
        /// The first abort handler in a slot of its own: most transfers have
        /// one, and an array would cost an allocation.
        var handler: Handler?
        var moreHandlers: [Handler] = []
        var received: Int64 = 0
        /// The upload total last reported, so a transport that repeats a
        /// report (Foundation does at the end of a body) is heard once.
        var sent: Int64 = -1
        /// When bytes last moved (uptime nanoseconds).
        var lastActivity: UInt64
        /// Whether the transfer waits on the server now, so the idle clock
        /// runs: until the head arrives, and for a body read chunk by chunk
        /// whenever its reader waits for a chunk that has not arrived.
        var waitsOnServer = true
    }

    enum State {
        case running(Running)
        /// Stopped; the activity is kept for the watchdog's last look.
        case stopped(TransferControl.Reason, lastActivity: UInt64, waitsOnServer: Bool)
    }

    private(set) var state: State
    let bodyLimit: ResponseTooLarge?

    init(bodyLimit: ResponseTooLarge?, now: UInt64) {
        self.bodyLimit = bodyLimit
        state = .running(Running(lastActivity: now))
    }

    // MARK: - Transitions

    /// Registers `handler`; `false` when the transfer has stopped already
    /// (then the caller runs it at once).
    mutating func onAbort(_ handler: @escaping Handler) -> Bool {
        guard case .running(var running) = state else { return false }
        if running.handler == nil { running.handler = handler } else { running.moreHandlers.append(handler) }
        state = .running(running)
        return true
    }

    /// The abort handlers to run, the first in a slot of its own (no array
    /// for the one most transfers have).
    struct Handlers {
        var first: Handler?
        var more: [Handler] = []

        func run() {
            first?()
            for handler in more { handler() }
        }
    }

    /// Stops the transfer; returns the handlers to run, none when it had
    /// stopped already (the first reason wins).
    mutating func abort(_ reason: TransferControl.Reason) -> Handlers {
        guard case .running(let running) = state else { return Handlers() }
        state = .stopped(reason, lastActivity: running.lastActivity, waitsOnServer: running.waitsOnServer)
        return Handlers(first: running.handler, more: running.moreHandlers)
    }

    enum ReceiveAction {
        /// Keep the bytes.
        case keep
        /// Drop them: the transfer had stopped.
        case drop
        /// Drop them and stop the transfer for its limit: run these handlers.
        case stop(Handlers)
    }

    /// Body bytes a transport is about to keep.
    mutating func didReceive(byteCount: Int, now: UInt64) -> ReceiveAction {
        guard case .running(var running) = state else { return .drop }
        running.lastActivity = now
        running.received += Int64(byteCount)
        state = .running(running)
        if let bodyLimit, running.received > bodyLimit.bytes {
            return .stop(abort(.tooLarge(bodyLimit)))
        }
        return .keep
    }

    /// Upload progress; whether `totalSent` is news (more than reported before).
    mutating func didSend(_ totalSent: Int64, now: UInt64) -> Bool {
        guard case .running(var running) = state else { return false }
        running.lastActivity = now
        defer { running.sent = max(running.sent, totalSent); state = .running(running) }
        return totalSent > running.sent
    }

    /// Something moved; `waitsOnServer` changes the idle clock when given.
    mutating func touch(now: UInt64, waitsOnServer: Bool? = nil) {
        guard case .running(var running) = state else { return }
        running.lastActivity = now
        if let waitsOnServer { running.waitsOnServer = waitsOnServer }
        state = .running(running)
    }

    // MARK: - Reading

    var reason: TransferControl.Reason? {
        if case .stopped(let reason, _, _) = state { return reason }
        return nil
    }

    var activity: (last: UInt64, waitsOnServer: Bool) {
        switch state {
        case .running(let running): (running.lastActivity, running.waitsOnServer)
        case .stopped(_, let last, let waits): (last, waits)
        }
    }
}
