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

    /// How many unread bytes a streamed body holds before a chunk's
    /// `whenConsumed` waits for the reader: 256 KiB.
    public static let readAheadLimit = 256 << 10

    /// A body that arrives in chunks, and the writer that delivers them.
    ///
    /// The writer never blocks; a client that can wait passes `whenConsumed`
    /// to ``ResponseBodyWriter/yield(_:whenConsumed:)`` and sends the next
    /// chunk only after it runs. It runs at once while fewer than
    /// ``readAheadLimit`` bytes wait unread (so the client reads on while the
    /// transfer stage writes), otherwise when the reader takes the chunk; so
    /// at most that many bytes and one chunk wait in memory.
    ///
    /// A client that cannot wait (it has no way to pause its connection)
    /// passes `maximumUnreadBytes`: when a chunk takes the unread bytes past
    /// it, the unread chunks are dropped and the reader's next read fails with
    /// ``NetworkError/responseTooLarge(_:)`` (``ResponseTooLarge/Limit/readAhead``),
    /// which ends the transfer.
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

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Reads the whole body, for transports that wrap another one and for
    /// tests; the transfer stage reads bodies itself, under its limits.
    /// - Throws: ``NetworkError/responseTooLarge(_:)`` past `limit` bytes, or
    ///   the failure that ended the stream.
    public func collect(upTo limit: Int) async throws(NetworkError) -> Data {
        let tooLarge = NetworkError.responseTooLarge(ResponseTooLarge(limit: .memory, bytes: Int64(limit)))
        switch storage {
        case .whole(let data):
            guard data.count <= limit else { throw tooLarge }
            return data
        case .stream(let stream):
            var data = Data()
            while let chunk = try await stream.next() {
                guard data.count + chunk.count <= limit else {
                    stream.stop()
                    throw tooLarge
                }
                data.append(chunk)
            }
            return data
        }
    }
}

/// Delivers the chunks of a streamed ``ResponseBody``, from any thread.
public struct ResponseBodyWriter: Sendable {
    let stream: ResponseBodyStream

    /// Hands over the next chunk. `whenConsumed` runs at once while the
    /// unread chunks, this one included, come to at most
    /// ``ResponseBody/readAheadLimit`` bytes; otherwise once the reader has
    /// taken this chunk (or has stopped reading).
    public func yield(_ chunk: Data, whenConsumed: (@Sendable () -> Void)? = nil) {
        stream.yield(chunk, whenConsumed: whenConsumed)
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

/// A single-reader queue of chunks between a transport and the transfer stage.
final class ResponseBodyStream: Sendable {
    private struct Chunk {
        let data: Data
        let whenConsumed: (@Sendable () -> Void)?
    }

    private struct State {
        var chunks: [Chunk] = []
        var head = 0
        /// The bytes of `chunks[head...]`.
        var unreadBytes = 0
        var ended = false
        var failure: NetworkError?
        var reader: CheckedContinuation<Data?, any Error>?
        /// Told when a chunk arrives, on the transport's thread, so the idle
        /// clock stops then and not when the reader gets to run.
        var arrivals: TransferControl?
    }

    private let state = Locked(State())
    /// Past this many unread bytes the stream fails (for a client that
    /// cannot wait); `nil` for no bound.
    private let maximumUnreadBytes: Int?

    init(maximumUnreadBytes: Int? = nil) {
        self.maximumUnreadBytes = maximumUnreadBytes
    }

    func yield(_ data: Data, whenConsumed: (@Sendable () -> Void)?) {
        /// Delivered to a waiting reader; or the client may go on (queued
        /// within the limit, or dropped: nobody reads any more, and the client
        /// goes on to be stopped by its abort); or it waits for the reader;
        /// or the reader fell too far behind a client that cannot wait.
        enum Outcome { case delivered(CheckedContinuation<Data?, any Error>), goOn, held, overflowed([Chunk]) }
        var arrivals: TransferControl?
        let outcome: Outcome = state.withLock { state in
            arrivals = state.arrivals
            guard !state.ended else { return .goOn }
            if let reader = state.reader {
                state.reader = nil
                return .delivered(reader)
            }
            if let limit = maximumUnreadBytes, state.unreadBytes + data.count > limit {
                let dropped = Array(state.chunks[state.head...])
                state.chunks = []
                state.head = 0
                state.unreadBytes = 0
                state.ended = true
                state.failure = .responseTooLarge(ResponseTooLarge(limit: .readAhead, bytes: Int64(limit)))
                return .overflowed(dropped)
            }
            state.unreadBytes += data.count
            // Within the limit the client may go on at once; the chunk that
            // passes it holds the client until the reader takes it.
            let withinLimit = state.unreadBytes <= ResponseBody.readAheadLimit
            state.chunks.append(Chunk(data: data, whenConsumed: withinLimit ? nil : whenConsumed))
            return withinLimit ? .goOn : .held
        }
        arrivals?.chunkArrived()
        switch outcome {
        case .delivered(let reader):
            reader.resume(returning: data)
            whenConsumed?()
        case .goOn:
            whenConsumed?()
        case .held:
            break
        case .overflowed(let dropped):
            for chunk in dropped { chunk.whenConsumed?() }
            whenConsumed?()
        }
    }

    /// Ends the stream with `failure` (or cleanly). What the transport
    /// delivered before stays readable, so the reader learns how much arrived;
    /// ``stop()`` drops it instead.
    func finish(throwing failure: NetworkError?) {
        let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = failure
            defer { state.reader = nil }
            return state.reader
        }
        if let reader {
            if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
        }
    }

    /// The reader gives up (a limit, a time-out, a cancelled call): the stream
    /// ends, unread chunks are dropped and their clients told they may go on,
    /// so no back-pressure promise is left waiting.
    func stop() {
        finish(throwing: .cancelled)
        let dropped = state.withLock { state -> [Chunk] in
            defer {
                state.chunks = []
                state.head = 0
                state.unreadBytes = 0
            }
            return Array(state.chunks[state.head...])
        }
        for chunk in dropped { chunk.whenConsumed?() }
    }

    /// Tells `control` of every chunk that arrives from now on.
    func reportArrivals(to control: TransferControl) {
        state.withLock { $0.arrivals = control }
    }

    /// Whether a reader waits for the next chunk (for tests).
    var readerIsWaiting: Bool {
        state.withLock { $0.reader != nil }
    }

    /// The next chunk, or `nil` at the end. A chunk already waiting is taken
    /// without suspending.
    func next() async throws(NetworkError) -> Data? {
        if let ready = state.withLock({ state in Self.take(&state, orWait: nil) }) {
            return try Self.deliver(ready)
        }
        do {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                guard let ready = state.withLock({ state in Self.take(&state, orWait: continuation) }) else { return }
                continuation.resume(with: Result { () throws(NetworkError) in try Self.deliver(ready) })
            }
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    /// The next unread chunk, or the end (`.success(nil)`), or the failure;
    /// `nil` when nothing is there yet, after leaving `reader` to be resumed
    /// by the writer.
    private static func take(_ state: inout State, orWait reader: CheckedContinuation<Data?, any Error>?)
        -> Result<Chunk?, NetworkError>? {
        if state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            state.head += 1
            state.unreadBytes -= chunk.data.count
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .success(chunk)
        }
        if state.ended {
            return state.failure.map { .failure($0) } ?? .success(nil)
        }
        if let reader { state.reader = reader }
        return nil
    }

    /// A taken chunk's data, after letting its client go on.
    private static func deliver(_ taken: Result<Chunk?, NetworkError>) throws(NetworkError) -> Data? {
        let chunk = try taken.get()
        chunk?.whenConsumed?()
        return chunk?.data
    }
}
