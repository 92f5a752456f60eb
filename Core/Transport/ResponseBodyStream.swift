import Foundation

/// A single-reader queue of chunks between a transport and the transfer
/// stage: ``ResponseBodyStateMachine`` behind a lock, its actions run
/// outside it.
final class ResponseBodyStream: Sendable {
    /// A waiting reader is parked as the sending end of its wake-ups.
    private typealias Machine = ResponseBodyStateMachine<AsyncStream<Void>.Continuation>

    private struct State: Sendable {
        var machine: Machine
        /// The transfer this body belongs to, stopped when a client that
        /// cannot wait overflows the unread bound: given by the exchange that
        /// makes the body, or set when the transfer stage watches it (see
        /// ``watched(by:)``).
        ///
        /// The transfer's abort handler holds this stream, so the stream lets
        /// go of the transfer when the body ends or is stopped (an overflow
        /// stops it through that handler): a cycle kept past the end would
        /// keep both, and all they hold, for the life of the process.
        var transfer: TransferControl?
        /// When a chunk last arrived or the reader last began to wait
        /// (uptime nanoseconds), kept only while a transfer watches: the
        /// transfer's idle clock, read by its watchdog (see ``clock``).
        var lastMoved: UInt64 = 0
        /// Whether chunks are taken: a body that a ``ResponseExchange`` makes
        /// takes none until its head has arrived (see ``open()``).
        var isOpen: Bool
        /// Whether a reader holds the wake-ups: from when it parks until its
        /// wait has returned, a little past the machine's hold on it (a
        /// woken reader is out of the machine before it runs). A second
        /// reader is refused over this span too, so two never await the
        /// wake-ups at once.
        var wakesHeld = false
    }

    private let state: Locked<State>
    /// The reader's wake-ups: the writer yields one for each time the reader
    /// waits (the machine hands a waiting reader out once), and the stream
    /// keeps it if it comes before the reader awaits it.
    private let wakes: Wakes

    /// The receiving end of a reader's wake-ups, awaited by one reader at a
    /// time (see `State.wakesHeld`).
    private final class Wakes: @unchecked Sendable {
        let waker: AsyncStream<Void>.Continuation
        // Touched only by the reader that holds the wake-ups.
        var waiting: AsyncStream<Void>.AsyncIterator

        init() {
            let (stream, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            self.waker = waker
            waiting = stream.makeAsyncIterator()
        }
    }

    /// A stream that takes chunks at once, or, `opensAtHead`, only once
    /// ``open()`` is called: a ``ResponseExchange``'s body, whose client
    /// hands its parts straight to it, so the exchange does not look at
    /// every part. A body made for `transfer` stops it when it overflows,
    /// whether or not anyone reads it yet.
    init(maximumUnreadBytes: Int? = nil, opensAtHead: Bool = false, transfer: TransferControl? = nil) {
        state = Locked(State(machine: Machine(readAheadLimit: ResponseBody.readAheadLimit, maximumUnreadBytes: maximumUnreadBytes),
                             transfer: transfer, isOpen: !opensAtHead))
        wakes = Wakes()
    }

    /// The head arrived: chunks are taken from now on.
    func open() {
        state.withLock { $0.isOpen = true }
    }

    /// Offers `data`; `whenConsumed` runs at once unless the chunk is held,
    /// and then when the reader takes it.
    @discardableResult
    func yield(_ data: Data, whenConsumed: (@Sendable () -> Void)?) -> Offer {
        let offered = offer(data, waitingWith: { whenConsumed })
        if offered != .held { whenConsumed?() }
        return offered
    }

    /// What became of a chunk offered to the stream.
    enum Offer: Equatable {
        /// Taken (queued, with a waiting reader woken or left for
        /// ``wake()``): the writer goes on now.
        case taken
        /// Taken past the read-ahead: the writer waits for its callback.
        case held
        /// Not taken: the body had not opened, had ended, or failed with
        /// this chunk past its unread bound. The writer goes on.
        case refused
    }

    /// Offers `data`; the callback `makeWaiter` makes (asked for under the
    /// lock, only for a chunk that is `held`) runs when the reader takes the
    /// chunk. With `defersWake`, a waiting reader is woken only by the next
    /// ``wake()`` (or the body's end).
    func offer(_ data: Data, defersWake: Bool = false, waitingWith makeWaiter: () -> (@Sendable () -> Void)?) -> Offer {
        let (action, transfer, woken) = state.withLock { state -> (Machine.YieldAction, TransferControl?, AsyncStream<Void>.Continuation?) in
            guard state.isOpen else { return (.refused, nil, nil) }
            // A chunk that arrives stops the idle clock here, on the client's
            // thread, not when the reader gets to run.
            if state.transfer != nil { state.lastMoved = DispatchTime.now().uptimeNanoseconds }
            let action = state.machine.yield(data, defersWake: defersWake, whenHeld: makeWaiter)
            // A writer that wakes at once wakes a reader that an earlier,
            // deferred chunk left waiting.
            return (action, state.transfer, defersWake ? nil : state.machine.wake())
        }
        woken?.yield()
        switch action {
        case .deliver(let reader):
            reader.yield()
            return .taken
        case .goOn:
            return .taken
        case .hold:
            return .held
        case .refused:
            return .refused
        case .overflow(let dropped, let failure, let reader):
            // The transfer stops now, not when the reader next reads: a
            // client that cannot wait would otherwise go on receiving, and
            // dropping, a body that never ends.
            transfer?.abort(.tooLarge(failure))
            reader?.yield()
            for chunk in dropped { chunk.whenConsumed?() }
            return .refused
        }
    }

    /// Wakes a reader that waits while chunks are queued, which then takes
    /// them in order: the writer's call after the chunks it offered with
    /// `defersWake`. Does nothing when no reader waits or nothing is queued.
    func wake() {
        state.withLock { $0.machine.wake() }?.yield()
    }

    /// Ends the stream with `failure` (or cleanly). What the transport
    /// delivered before stays readable, so the reader learns how much arrived;
    /// ``stop()`` drops it instead.
    func finish(throwing failure: NetworkError?) {
        let reader = state.withLock { state in
            state.transfer = nil
            return state.machine.finish(failure: failure)
        }
        reader?.yield()
    }

    /// The reader gives up (a limit, a time-out, a cancelled call): the stream
    /// ends, unread chunks are dropped and their clients told they may go on,
    /// so no back-pressure promise is left waiting.
    func stop() {
        let (dropped, reader) = state.withLock { state in
            state.transfer = nil
            return state.machine.stop()
        }
        reader?.yield()
        for chunk in dropped { chunk.whenConsumed?() }
    }

    /// The transfer stage watches this body as part of `control`'s transfer:
    /// the stream keeps the idle clock from now on (``clock``), and stops
    /// the transfer when a client that cannot wait overflows it.
    func watched(by control: TransferControl) {
        let now = DispatchTime.now().uptimeNanoseconds
        // A body that has ended has nothing to watch.
        state.withLock { state in
            guard state.machine.isStreaming else { return }
            state.transfer = control
            state.lastMoved = now
        }
    }

    /// The idle clock of a watched body: when bytes last moved, and whether
    /// the transfer waits on the server now, which it does only while the
    /// reader waits for a chunk that has not arrived (a reader that is busy
    /// elsewhere, or a body that has ended, is not the server's delay).
    var clock: (last: UInt64, readerWaits: Bool) {
        state.withLock { ($0.lastMoved, $0.machine.readerIsWaiting) }
    }

    /// Whether the body has ended: every chunk arrived, or it failed or was
    /// stopped (for tests).
    var hasEnded: Bool {
        state.withLock { !$0.machine.isStreaming }
    }

    /// Whether a reader waits for the next chunk (for tests).
    var readerIsWaiting: Bool {
        state.withLock { $0.machine.readerIsWaiting }
    }

    /// The next chunk, or `nil` at the end. A chunk already waiting is taken
    /// without suspending.
    ///
    /// A reader that finds nothing parks the sending end of its wake-ups in
    /// the machine and awaits the next one, then reads again: the chunk, the
    /// end or the failure waits in the machine, behind the lock, so nothing
    /// crosses threads outside it.
    ///
    /// The wake-ups are an `AsyncStream`, made once per body, because both
    /// kinds of continuation cost something here. A checked one costs every
    /// wait an allocation, and a reader that keeps up waits for most chunks.
    /// With an unchecked one, the thread sanitizer reported a race whenever
    /// a transport's thread woke the reader in the instant between its
    /// parking and its suspending, with or without a value in it: the
    /// resume's inlined code reads the waiting task's memory, which the task
    /// reuses once it runs, ordered only by the runtime, where the sanitizer
    /// cannot see. The stream waits and wakes inside the runtime, without an
    /// allocation a wait.
    ///
    /// A reader whose task is cancelled while it waits stops the body: the
    /// stream ends its wait at once then, and every later one too.
    nonisolated(nonsending) func next() async throws(NetworkError) -> Data? {
        // Whether this reader holds the wake-ups: from its parking until the
        // read after its wait, which lets go of them under the same lock.
        var holdsWakes = false
        while true {
            // One lock a read: a chunk that is there is taken, and a reader
            // that finds nothing parks in the same step.
            let action = state.withLock { state -> Machine.ReadAction in
                if holdsWakes {
                    state.wakesHeld = false
                } else if state.wakesHeld {
                    return .fail(.transport(ConcurrentBodyRead()))
                }
                let action = state.machine.next(waiting: wakes.waker)
                guard case .wait = action else { return action }
                state.wakesHeld = true
                // The idle clock runs from now until a chunk arrives.
                if state.transfer != nil { state.lastMoved = DispatchTime.now().uptimeNanoseconds }
                return action
            }
            if let ready = Self.result(of: action) { return try ready.get() }
            holdsWakes = true
            if await wakes.waiting.next() == nil { stop() }
        }
    }

    /// What a read returns now, after letting a taken chunk's client go on;
    /// `nil` when the reader must wait.
    private static func result(of action: Machine.ReadAction) -> Result<Data?, NetworkError>? {
        switch action {
        case .chunk(let chunk):
            chunk.whenConsumed?()
            return .success(chunk.data)
        case .end:
            return .success(nil)
        case .fail(let failure):
            return .failure(failure)
        case .wait:
            return nil
        }
    }
}
