import Foundation

/// The line between one transfer and Courier's transfer stage: the transport
/// reports activity through it and learns from it when to stop.
///
/// The transfer stage makes one for every request it hands to a transport
/// (see ``TransportRequest/control``) and watches it: when nothing moves for
/// the idle time-out, when the deadline passes, when a body outgrows its limit
/// or when the caller's task is cancelled, it calls the handlers registered
/// with ``onAbort(_:)``, and classifies the failure itself.
public final class TransferControl: Sendable {
    /// Why the transfer stage stopped a transfer.
    enum Reason: Sendable {
        case cancelled
        case timedOut(TransferTimeout)
        case tooLarge(ResponseTooLarge)

        var error: NetworkError {
            switch self {
            case .cancelled: .cancelled
            case .timedOut(let timeout): .timedOut(timeout)
            case .tooLarge(let failure): .responseTooLarge(failure)
            }
        }
    }

    private struct State: Sendable {
        var machine: TransferControlStateMachine
        /// The streamed body being read, which keeps the idle clock once the
        /// head has arrived (see ``activity``).
        var body: ResponseBodyStream?
    }

    private let state: Locked<State>
    private let uploadProgress: ProgressHandler?
    /// Whether the body is read chunk by chunk by the transfer stage or a
    /// caller: the idle clock then stops at the head, and the body's stream
    /// runs it while its reader waits (see ``activity``).
    private let readsInChunks: Bool
    /// Whether the body is counted against a limit as it arrives (a body kept
    /// in memory, or a streamed call's with a limit of its own): a transport
    /// that cannot wait for its reader then needs no bound of its own on
    /// what waits unread, since the count bounds it.
    let limitsArrivals: Bool

    /// A control with no limit and nobody listening, for tests and for
    /// transports that wrap another one.
    public convenience init() {
        self.init(bodyLimit: nil, progress: nil)
    }

    init(bodyLimit: ResponseTooLarge?, progress: ProgressHandler?, readsInChunks: Bool = false) {
        self.uploadProgress = progress
        self.readsInChunks = readsInChunks
        self.limitsArrivals = bodyLimit != nil
        self.state = Locked(State(machine: TransferControlStateMachine(bodyLimit: bodyLimit, now: DispatchTime.now().uptimeNanoseconds)))
    }

    // MARK: - What the transport reports

    /// Reports request body bytes handed to the network: `totalSent` so far,
    /// of `total` when known.
    public func didSend(_ totalSent: Int64, of total: Int64?) {
        let now = DispatchTime.now().uptimeNanoseconds
        let isNew = state.withLock { $0.machine.didSend(totalSent, now: now) }
        guard isNew, let uploadProgress else { return }
        uploadProgress(TransferProgress(direction: .upload, completedBytes: totalSent, totalBytes: total.flatMap { $0 > 0 ? $0 : nil }))
    }

    /// Reports that the response head arrived (``ResponseExchange`` does,
    /// for the transport).
    func didReceiveHead() {
        let now = DispatchTime.now().uptimeNanoseconds
        let readsInChunks = readsInChunks
        state.withLock { $0.machine.touch(now: now, waitsOnServer: readsInChunks ? false : nil) }
    }

    /// Counts body bytes before they are kept (``ResponseExchange`` does,
    /// for the transport); stops the transfer (through the abort handlers)
    /// once the body passes its limit, so a body that passes it never takes
    /// more memory than the limit.
    /// - Returns: Whether to keep the bytes: `false` once the body has passed
    ///   its limit or the transfer has been stopped.
    @discardableResult
    func didReceive(byteCount: Int) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        switch state.withLock({ $0.machine.didReceive(byteCount: byteCount, now: now) }) {
        case .keep:
            return true
        case .drop:
            return false
        case .stop(let handlers):
            handlers.run()
            return false
        }
    }

    /// Runs `handler` once when the transfer must stop; at once if it already
    /// must. The handler cancels the client's request; the transport then
    /// throws whatever its client reports.
    public func onAbort(_ handler: @escaping @Sendable () -> Void) {
        if !state.withLock({ $0.machine.onAbort(handler) }) { handler() }
    }

    /// Whether the transfer has been told to stop.
    public var isAborted: Bool {
        state.withLock { $0.machine.reason != nil }
    }

    // MARK: - What the transfer stage does

    var lastActivity: UInt64 { activity.last }

    /// When bytes last moved, and whether the transfer waits on the server
    /// now (when it does not, it cannot be idle): the control's own until a
    /// streamed body is read, then the body's, which runs the clock only
    /// while its reader waits for a chunk (so a chunk costs the control
    /// nothing; the watchdog asks only when it looks).
    var activity: (last: UInt64, waitsOnServer: Bool) {
        let (own, body) = state.withLock { ($0.machine.activity, $0.body) }
        guard let body else { return own }
        let clock = body.clock
        return (max(own.last, clock.last), clock.readerWaits)
    }

    /// The transfer stage reads `body`, this transfer's streamed body: from
    /// now on the body keeps the idle clock, and a client that overflows
    /// its unread bound stops this transfer.
    func reads(_ body: ResponseBodyStream) {
        state.withLock { $0.body = body }
        body.watched(by: self)
    }

    var reason: Reason? { state.withLock { $0.machine.reason } }

    /// Stops the transfer for `reason`; the first reason wins.
    func abort(_ reason: Reason) {
        state.withLock { $0.machine.abort(reason) }.run()
    }

    /// The error a failure stands for: the reason the transfer stage stopped
    /// the transfer, when it did, or the transport's own error.
    func failure(for error: any Error) -> NetworkError {
        if let reason { return reason.error }
        return NetworkError(transportError: error)
    }
}
