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
    ///   - wakesReader: Whether a reader that waits is woken for the chunk
    ///     now; with `false`, it sleeps on until ``wakeReader()`` or the
    ///     body's end, which the client must then bring about.
    ///   - makeWaiter: Makes the callback to run once the reader has taken
    ///     this chunk (or has stopped reading); called at most once, before
    ///     this returns, under the stream's lock, so it must not call back
    ///     into the body.
    /// - Returns: `true` when the client may read on at once (`makeWaiter`
    ///   was not called); `false` when it waits for the callback.
    public func yield(_ chunk: Data, wakesReader: Bool = true, waitingWith makeWaiter: () -> @Sendable () -> Void) -> Bool {
        stream.offer(chunk, defersWake: !wakesReader, waitingWith: { makeWaiter() }) != .held
    }

    /// Wakes a reader that waits while chunks yielded with `wakesReader:
    /// false` are queued; it then reads them in order. Does nothing when no
    /// reader waits or nothing is queued.
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
