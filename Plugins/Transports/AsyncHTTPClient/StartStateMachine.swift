/// Work started elsewhere that may be stopped before it starts, while it
/// runs, or after: waiting (with what a stop before the start has to end),
/// started (with the handle that cancels it), or stopped.
///
/// A request's start on its event loop (`Waiter` is its exchange, `Handle`
/// the client's task) and a streamed request body's reader (`Waiter` is
/// `Void`, `Handle` its task) both go through it. Tests use plain values.
struct StartStateMachine<Waiter, Handle> {
    enum Phase {
        case waiting(Waiter)
        case started(Handle)
        case stopped
    }

    private(set) var phase: Phase

    init(waiting waiter: Waiter) {
        phase = .waiting(waiter)
    }

    enum StartedAction {
        case none
        /// Stopped before it started, or started a second time: cancel it.
        case cancel(Handle)
    }

    /// The work started as `handle`. The waiter is let go: from now on only
    /// the handle is held.
    mutating func started(_ handle: Handle) -> StartedAction {
        switch phase {
        case .waiting:
            phase = .started(handle)
            return .none
        case .started, .stopped:
            // Only one start is ever made; a second is refused the same way
            // as one that comes too late.
            return .cancel(handle)
        }
    }

    enum StopAction {
        /// Stopped already: nothing to do.
        case none
        /// Stopped before it started, and the start may never run: end what
        /// waited for it here.
        case end(Waiter)
        /// Stopped while it runs: cancel it.
        case cancel(Handle)
    }

    /// The work is to stop; only the first stop acts.
    mutating func stop() -> StopAction {
        defer { phase = .stopped }
        switch phase {
        case .waiting(let waiter): return .end(waiter)
        case .started(let handle): return .cancel(handle)
        case .stopped: return .none
        }
    }
}

extension StartStateMachine: Sendable where Waiter: Sendable, Handle: Sendable {}
extension StartStateMachine.Phase: Sendable where Waiter: Sendable, Handle: Sendable {}
