import Foundation

/// The state of one transfer as its ``TransferControl`` sees it: running,
/// with the handlers that stop it, or stopped for a reason; and what moved
/// when. Transitions return what the control must do outside its lock.
///
/// ```
/// running ──abort(reason) / a body past its limit──▶ stopped(reason)
/// ```
///
/// The activity (bytes counted, when they last moved, whether the idle clock
/// runs) sits beside the state, not in it: every chunk counted as it arrives
/// updates it, and rewriting the enum's payload would copy the handlers each
/// time.
struct TransferControlStateMachine {
    typealias Handler = @Sendable () -> Void

    enum State {
        /// The first abort handler in a slot of its own: most transfers have
        /// one, and an array would cost an allocation.
        case running(handler: Handler?, more: [Handler])
        case stopped(TransferControl.Reason)
    }

    private(set) var state: State = .running(handler: nil, more: [])
    let bodyLimit: ResponseTooLarge?
    private var received: Int64 = 0
    /// The upload total last reported, so a transport that repeats a report
    /// (Foundation does at the end of a body) is heard once.
    private var sent: Int64 = -1
    /// When bytes last moved (uptime nanoseconds); kept after a stop for the
    /// watchdog's last look.
    private var lastActivity: UInt64
    /// Whether the transfer waits on the server now, so the idle clock runs:
    /// until the head arrives, and after it for a body collected whole. A
    /// body read chunk by chunk stops it at the head; its stream runs the
    /// clock from then on, while its reader waits (see
    /// `TransferControl.activity`).
    private var waitsOnServer = true

    init(bodyLimit: ResponseTooLarge?, now: UInt64) {
        self.bodyLimit = bodyLimit
        lastActivity = now
    }

    private var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    // MARK: - Transitions

    /// Registers `handler`; `false` when the transfer has stopped already
    /// (then the caller runs it at once).
    mutating func onAbort(_ handler: @escaping Handler) -> Bool {
        guard case .running(let first, var more) = state else { return false }
        if first == nil {
            state = .running(handler: handler, more: more)
        } else {
            more.append(handler)
            state = .running(handler: first, more: more)
        }
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
        guard case .running(let first, let more) = state else { return Handlers() }
        state = .stopped(reason)
        return Handlers(first: first, more: more)
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
        guard isRunning else { return .drop }
        lastActivity = now
        received += Int64(byteCount)
        if let bodyLimit, received > bodyLimit.bytes {
            return .stop(abort(.tooLarge(bodyLimit)))
        }
        return .keep
    }

    /// Upload progress; whether `totalSent` is news (more than reported before).
    mutating func didSend(_ totalSent: Int64, now: UInt64) -> Bool {
        guard isRunning else { return false }
        lastActivity = now
        defer { sent = max(sent, totalSent) }
        return totalSent > sent
    }

    /// Something moved; `waitsOnServer` changes the idle clock when given.
    mutating func touch(now: UInt64, waitsOnServer: Bool? = nil) {
        guard isRunning else { return }
        lastActivity = now
        if let waitsOnServer { self.waitsOnServer = waitsOnServer }
    }

    // MARK: - Reading

    var reason: TransferControl.Reason? {
        if case .stopped(let reason) = state { return reason }
        return nil
    }

    var activity: (last: UInt64, waitsOnServer: Bool) {
        (lastActivity, waitsOnServer)
    }
}
