import Foundation

/// A response body as a transport hands it over: whole, or as a stream of
/// chunks that the transfer stage reads one at a time.
///
/// ```swift
/// let whole = ResponseBody(Data("hello".utf8))
///
/// let (streamed, writer) = ResponseBody.makeStream()
/// writer.yield(Data("hel".utf8))
/// writer.yield(Data("lo".utf8))
/// writer.finish()
/// ```
public struct ResponseBody: Sendable {
    enum Storage: Sendable {
        case whole(Data)
        case stream(ResponseBodyStream)
    }

    let storage: Storage

    /// A body that has already arrived whole.
    public init(_ data: Data) {
        storage = .whole(data)
    }

    /// An empty body.
    public static let empty = ResponseBody(Data())

    /// How much a streamed body holds unread before a chunk's `whenConsumed`
    /// waits for the reader: 256 KiB, each chunk charged its bytes and 128
    /// bytes of bookkeeping (so a server that sends one-byte chunks cannot
    /// queue a quarter of a million of them).
    public static let readAheadLimit = 256 << 10

    /// A body that arrives in chunks, and the writer that delivers them.
    ///
    /// The writer never blocks; a client that can wait passes `whenConsumed`
    /// to ``ResponseBodyWriter/yield(_:whenConsumed:)`` and sends the next
    /// chunk only after it runs. It runs at once while what waits unread,
    /// this chunk included, comes to at most ``readAheadLimit`` (each chunk
    /// charged its bytes and 128 bytes of bookkeeping), so the client reads
    /// on while the transfer stage writes; otherwise when the reader takes
    /// the chunk. So at most that much and one chunk wait in memory.
    ///
    /// A client that cannot wait (it has no way to pause its connection)
    /// passes `maximumUnreadBytes`: when a chunk takes the unread bytes past
    /// it, the unread chunks are dropped, the transfer is stopped (its
    /// ``TransferControl`` aborts, which cancels the client's request), and
    /// the reader's next read fails with ``NetworkError/responseTooLarge(_:)``
    /// (``ResponseTooLarge/Limit/readAhead``).
    /// - Parameter maximumUnreadBytes: The most bytes left unread before the
    ///   body fails; `nil` for no bound, for a client that waits for
    ///   `whenConsumed`.
    public static func makeStream(maximumUnreadBytes: Int? = nil) -> (body: ResponseBody, writer: ResponseBodyWriter) {
        let stream = ResponseBodyStream(maximumUnreadBytes: maximumUnreadBytes)
        return (ResponseBody(storage: .stream(stream)), ResponseBodyWriter(stream: stream))
    }

    /// A body that broke off: `received` arrived, then `failure` (a reset, an
    /// early close). The transfer stage sees how much was missing and names
    /// the failure; a transport that collects bodies whole hands this over
    /// when its client fails after the head.
    public static func partial(_ received: Data, failure: any Error) -> ResponseBody {
        let (body, writer) = makeStream()
        writer.yield(received)
        writer.fail(failure)
        return body
    }

    init(storage: Storage) {
        self.storage = storage
    }

    /// Reads the whole body, for transports that wrap another one and for
    /// tests; the transfer stage reads bodies itself, under its limits.
    /// - Throws: ``NetworkError/responseTooLarge(_:)`` past `limit` bytes, or
    ///   the failure that ended the stream, named as the transfer stage names
    ///   a body that broke off.
    public func collect(upTo limit: Int) async throws(NetworkError) -> Data {
        var reader = BodyReader(self, control: nil, limit: ResponseTooLarge(limit: .memory, bytes: Int64(limit)), announced: nil)
        var data = Data()
        while let chunk = try await reader.next() {
            if data.isEmpty { data = chunk } else { data.append(chunk) }
        }
        return data
    }
}

/// Delivers the chunks of a streamed ``ResponseBody``, from any thread.
public struct ResponseBodyWriter: Sendable {
    let stream: ResponseBodyStream

    /// Hands over the next chunk. `whenConsumed` runs at once while the
    /// unread chunks, this one included, come to at most
    /// ``ResponseBody/readAheadLimit`` (their bytes, and 128 bytes each);
    /// otherwise once the reader has taken this chunk (or has stopped
    /// reading).
    public func yield(_ chunk: Data, whenConsumed: (@Sendable () -> Void)? = nil) {
        stream.yield(chunk, whenConsumed: whenConsumed)
    }

    /// Hands over the next chunk and says whether the client may read on
    /// now, making a callback only when it must wait: the form for a client
    /// whose way to wait costs something to make (a promise), since most
    /// chunks of a reader that keeps up go on at once.
    ///
    /// ```swift
    /// var consumed: EventLoopPromise<Void>?
    /// _ = writer.yield(chunk) {
    ///     let promise = eventLoop.makePromise(of: Void.self)
    ///     consumed = promise
    ///     return { promise.succeed() }
    /// }
    /// return consumed?.futureResult ?? eventLoop.makeSucceededVoidFuture()
    /// ```
    ///
    /// A client that delivers several chunks in one go (the parts of one
    /// read of its socket) passes `wakesReader: false` for each and calls
    /// ``wakeReader()`` once after the last, so its reader is woken once for
    /// them all, not once a chunk (each wake schedules the reader's task on
    /// another thread).
    /// - Parameters:
    ///   - chunk: The next bytes of the body.
    ///   - wakesReader: Whether a reader that waits is handed the chunk now;
    ///     with `false`, it waits for ``wakeReader()`` or the body's end,
    ///     which the client must then bring about.
    ///   - makeWaiter: Makes the callback to run once the reader has taken
    ///     this chunk (or has stopped reading); called at most once, before
    ///     this returns, under the stream's lock, so it must not call back
    ///     into the body.
    /// - Returns: `true` when the client may read on at once (`makeWaiter`
    ///   was not called); `false` when it waits for the callback.
    public func yield(_ chunk: Data, wakesReader: Bool = true, waitingWith makeWaiter: () -> @Sendable () -> Void) -> Bool {
        stream.offer(chunk, defersWake: !wakesReader, waitingWith: { makeWaiter() }) != .held
    }

    /// Hands a reader that waits the oldest chunk yielded with `wakesReader:
    /// false`; does nothing when no reader waits or nothing is queued.
    public func wakeReader() {
        stream.wake()
    }

    /// Ends the body: every byte has been delivered.
    public func finish() {
        stream.finish(throwing: nil)
    }

    /// Ends the body with a failure (a lost connection, a parse error),
    /// classified as ``NetworkError/init(transportError:)`` does. Chunks
    /// already yielded are read first, so the transfer stage knows how much
    /// arrived.
    public func fail(_ error: any Error) {
        stream.finish(throwing: NetworkError(transportError: error))
    }
}

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
        /// Taken (or handed to the waiting reader): the writer goes on now.
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

    /// Wakes a reader that waits while chunks are queued, with the oldest:
    /// the writer's call after the chunks it offered with `defersWake`. Does
    /// nothing when no reader waits or nothing is queued.
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
        while true {
            if let ready = Self.result(of: state.withLock({ $0.machine.next(waiting: nil) })) {
                return try ready.get()
            }
            let action = state.withLock { state -> Machine.ReadAction in
                guard !state.wakesHeld else { return .fail(.transport(ConcurrentBodyRead())) }
                let action = state.machine.next(waiting: wakes.waker)
                guard case .wait = action else { return action }
                state.wakesHeld = true
                // The idle clock runs from now until a chunk arrives.
                if state.transfer != nil { state.lastMoved = DispatchTime.now().uptimeNanoseconds }
                return action
            }
            if let ready = Self.result(of: action) { return try ready.get() }
            let woken = await wakes.waiting.next() != nil
            state.withLock { $0.wakesHeld = false }
            if !woken { stop() }
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
