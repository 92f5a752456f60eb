import Foundation

/// The state of a streamed body between its writer (a transport) and its one
/// reader, as an enum whose transitions return what the caller must do: the
/// stream runs them under its lock and acts outside it. Generic over the
/// waiting reader, so the transitions are tested without tasks.
///
/// ```
/// streaming ──finish──▶ ended ──last chunk read──▶ (reads end or fail)
///     │                   ▲
///     └──stop / overflow──┘ (unread chunks dropped)
/// ```
///
/// A waiting reader is woken, not handed the chunk: every chunk is queued,
/// and the reader takes it from the queue once it runs. So waking carries no
/// value from the writer's thread to the reader's (see
/// ``ResponseBodyStream/next()``).
///
/// A writer that hands over several chunks in one go (the parts of one read
/// of a socket) may leave a waiting reader asleep until the last of them is
/// in (`defersWake`), then wake it once (``wake()``): each wake is a thread
/// hand-off, and a reader woken for every part costs the process a
/// scheduling of its task, and its allocations, for each.
struct ResponseBodyStateMachine<Reader: Sendable>: Sendable {
    /// A chunk and the writer's callback for when it is taken.
    struct Chunk {
        let data: Data
        let whenConsumed: (@Sendable () -> Void)?
    }

    /// Chunks not read yet, oldest first, and their bytes.
    struct Unread {
        private(set) var chunks: [Chunk] = []
        private var head = 0
        private(set) var bytes = 0

        var isEmpty: Bool { head == chunks.count }
        /// What the unread chunks cost in memory: their bytes, and
        /// ``ResponseBodyStateMachine/chunkOverhead`` for each.
        var charged: Int { bytes + (chunks.count - head) * ResponseBodyStateMachine.chunkOverhead }

        mutating func append(_ chunk: Chunk) {
            chunks.append(chunk)
            bytes += chunk.data.count
        }

        mutating func removeFirst() -> Chunk? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            head += 1
            bytes -= chunk.data.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            return chunk
        }

        mutating func removeAll() -> [Chunk] {
            defer { self = Unread() }
            return Array(chunks[head...])
        }
    }

    enum State {
        /// The writer may still yield; a reader may be waiting. Chunks are
        /// unread while a reader waits only between a yield that defers its
        /// wake and the ``ResponseBodyStateMachine/wake()`` that follows it.
        case streaming(Unread, reader: Reader?)
        /// The writer is done: the unread chunks are read, then the end (or
        /// the failure).
        case ended(Unread, failure: NetworkError?)
    }

    private(set) var state: State = .streaming(Unread(), reader: nil)
    /// What a queued chunk costs beyond its bytes (its record, its `Data`'s
    /// storage object and their allocations), charged against
    /// ``maximumUnreadBytes`` and the read-ahead: a server that sends
    /// one-byte chunks to a reader that lags must not queue millions of
    /// records within a bound meant for bytes.
    static var chunkOverhead: Int { 128 }
    /// How much unread (bytes, and the overhead of each chunk) lets the
    /// writer go on at once.
    let readAheadLimit: Int
    /// Past this many unread bytes the body fails, for a writer that cannot
    /// wait; `nil` for no bound.
    let maximumUnreadBytes: Int?

    init(readAheadLimit: Int, maximumUnreadBytes: Int?) {
        self.readAheadLimit = readAheadLimit
        self.maximumUnreadBytes = maximumUnreadBytes
    }

    // MARK: - The writer

    enum YieldAction {
        /// Wake the reader that waited, which takes the chunk from the queue
        /// when it runs; the writer goes on.
        case deliver(to: Reader)
        /// Let the writer go on now: the chunk is queued within the read-ahead.
        case goOn
        /// The body had ended (or been stopped): the chunk is dropped, and
        /// the writer goes on.
        case refused
        /// The writer waits: its callback runs when the reader takes the chunk.
        case hold
        /// The reader fell too far behind: the body failed with `failure`;
        /// stop the transfer, let these writers, and this one, go on, and
        /// fail the reader that waited, if one did (see `defersWake`).
        case overflow(dropped: [Chunk], failure: ResponseTooLarge, reader: Reader?)
    }

    mutating func yield(_ chunk: Chunk, defersWake: Bool = false) -> YieldAction {
        yield(chunk.data, defersWake: defersWake) { chunk.whenConsumed }
    }

    /// Yields `data`, with the callback `whenHeld` makes kept only for a
    /// chunk that holds the writer (`.hold`): a writer that goes on at once,
    /// most chunks of a fast reader, makes none.
    ///
    /// With `defersWake`, a waiting reader is not woken for the chunk: it is
    /// queued like any other (`.goOn` or `.hold`), and the reader waits on
    /// until ``wake()``. Without it, a reader that waits while chunks are
    /// queued (a writer that deferred before) is left for ``wake()`` too.
    mutating func yield(_ data: Data, defersWake: Bool = false, whenHeld: () -> (@Sendable () -> Void)?) -> YieldAction {
        guard case .streaming(var unread, let reader) = state else { return .refused }
        // The state lets go of the queue while it grows, so appending never
        // copies it.
        state = .streaming(Unread(), reader: nil)
        if let reader, !defersWake, unread.isEmpty {
            // The reader takes it as soon as it runs: never held.
            unread.append(Chunk(data: data, whenConsumed: nil))
            state = .streaming(unread, reader: nil)
            return .deliver(to: reader)
        }
        if let limit = maximumUnreadBytes, unread.charged + data.count + Self.chunkOverhead > limit {
            let dropped = unread.removeAll()
            let failure = ResponseTooLarge(limit: .readAhead, bytes: Int64(limit))
            state = .ended(Unread(), failure: .responseTooLarge(failure))
            return .overflow(dropped: dropped, failure: failure, reader: reader)
        }
        // Each chunk is charged its overhead here too: a server that sends
        // one-byte chunks to a reader that lags would otherwise queue a
        // quarter of a million records within a read-ahead meant for bytes.
        let withinLimit = unread.charged + data.count + Self.chunkOverhead <= readAheadLimit
        unread.append(Chunk(data: data, whenConsumed: withinLimit ? nil : whenHeld()))
        state = .streaming(unread, reader: reader)
        return withinLimit ? .goOn : .hold
    }

    /// The reader to wake, which waits while chunks are queued for it (a
    /// writer deferred its wake): `nil` when no reader waits or nothing is
    /// queued (a reader that took the chunks itself, or a body that ended,
    /// which woke it).
    mutating func wake() -> Reader? {
        guard case .streaming(let unread, let reader?) = state, !unread.isEmpty else { return nil }
        state = .streaming(unread, reader: nil)
        return reader
    }

    /// The writer is done (`failure` `nil`) or failed. Returns the waiting
    /// reader to wake, which then reads what is queued (a wake the writer
    /// deferred) and the end or the failure; `nil` when none waits or the
    /// body had already ended (the first end wins).
    mutating func finish(failure: NetworkError?) -> Reader? {
        guard case .streaming(let unread, let reader) = state else { return nil }
        state = .ended(unread, failure: failure)
        return reader
    }

    /// The reader gives up: the body ends cancelled (unless it had ended), and
    /// the unread chunks are dropped; returns them, so their writers go on,
    /// and the reader that waited, if one did.
    ///
    /// A body whose writer had finished but whose chunks were not all read
    /// ends cancelled too: dropping them and keeping its clean end would hand
    /// the reader a body cut short as if it were whole.
    mutating func stop() -> (dropped: [Chunk], reader: Reader?) {
        switch state {
        case .streaming(var unread, let reader):
            let dropped = unread.removeAll()
            state = .ended(Unread(), failure: .cancelled)
            return (dropped, reader)
        case .ended(var unread, let failure):
            let dropped = unread.removeAll()
            state = .ended(Unread(), failure: dropped.isEmpty ? failure : failure ?? .cancelled)
            return (dropped, nil)
        }
    }

    // MARK: - The reader

    enum ReadAction {
        /// This chunk: run its callback, then return its data.
        case chunk(Chunk)
        /// The body ended.
        case end
        /// The body failed.
        case fail(NetworkError)
        /// Nothing yet: the reader waits, and the writer resumes it.
        case wait
    }

    /// The next read; with `reader`, it is kept to be resumed when nothing
    /// is there yet (without, the caller asks again with one).
    mutating func next(waiting reader: Reader?) -> ReadAction {
        switch state {
        case .streaming(var unread, let waiting):
            state = .streaming(Unread(), reader: nil)
            if let chunk = unread.removeFirst() {
                state = .streaming(unread, reader: waiting)
                return .chunk(chunk)
            }
            state = .streaming(unread, reader: waiting ?? reader)
            // One reader: a second one that would wait beside the first is
            // refused, since only one of them could ever be woken.
            if waiting != nil, reader != nil { return .fail(.transport(ConcurrentBodyRead())) }
            return .wait
        case .ended(var unread, let failure):
            state = .ended(Unread(), failure: failure)
            if let chunk = unread.removeFirst() {
                state = .ended(unread, failure: failure)
                return .chunk(chunk)
            }
            return failure.map { .fail($0) } ?? .end
        }
    }

    /// Whether the writer may still yield chunks.
    var isStreaming: Bool {
        if case .streaming = state { return true }
        return false
    }

    /// Whether a reader waits for the next chunk.
    var readerIsWaiting: Bool {
        if case .streaming(_, reader: .some) = state { return true }
        return false
    }
}

/// A body read by two readers at once: the second is refused. Read a body
/// from one task; a streamed response's body belongs to the iterator that
/// read it first.
struct ConcurrentBodyRead: Error, CustomStringConvertible {
    var description: String {
        "the body is already being read by another reader; read a response body once, from one task"
    }
}
