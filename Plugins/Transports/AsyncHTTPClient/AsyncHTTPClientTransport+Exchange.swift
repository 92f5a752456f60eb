import AsyncHTTPClient
import Courier
import CourierGzip
import Foundation
import NIOCore
import NIOHTTP1

/// One request through AsyncHTTPClient's delegate API, fed to the request's
/// ``ResponseExchange``: reports the request body's progress, hands the head
/// and the body's parts on (a streamed part with back-pressure), its
/// `Content-Encoding` undone when the request asks for it (by CourierGzip's
/// `StreamingDecompression`, a slice at a time). AsyncHTTPClient calls it on
/// the task's event loop, one call at a time.
final class Exchange: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// The most decoded bytes handed to a streamed body's reader at once: a
    /// quarter of the read-ahead, so three go on while a fourth waits (a
    /// chunk as large as the read-ahead would hold the connection at every
    /// chunk, since each is charged its bookkeeping too).
    private static let decodedChunkSize = ResponseBody.readAheadLimit / 4
    /// Compressed bytes decoded in one step: zlib inflates at most about
    /// 1,032 bytes from one, so at most about 4 MiB of output, each step's
    /// counted against the transfer's limit before the next is decoded (a
    /// decompression bomb takes no more memory than the limit and one step).
    private static let sliceSize = 4096

    /// What the client reported that the response exchange does not keep.
    private struct State: Sendable {
        var sent: Int64 = 0
        /// Body bytes received, as the server sent them (before decoding).
        var received: Int64 = 0
        var head: HTTPResponseHead?
        /// Undoes the body's `Content-Encoding`, when it is undone.
        var decoder: StreamingDecompression?
        /// Whether the streamed body's reader is to be woken at the end of
        /// this turn of the event loop (see ``handOn(_:on:)``).
        var wakeScheduled = false
    }

    private let request: TransportRequest
    private let exchange: ResponseExchange
    private let state = Locked(State())
    /// Where the request's event loop was chosen, and the slot to give back.
    private let loop: (choice: EventLoopChoice, slot: Int)?
    /// The task reading a streamed request body, if the body is one.
    private let producer: BodyProducer?
    /// The transport that sent the request, held for as long as
    /// AsyncHTTPClient holds this delegate (its `RequestBag`, at least until
    /// the request's task has ended): a transport released while a call is
    /// under way (a streamed body still arriving after its provider went)
    /// shuts its client down only after that.
    private let transport: AsyncHTTPClientTransport
    /// Whether large parts are shared with the client's buffers instead of
    /// copied: not over TLS, whose handler decrypts every read into one
    /// buffer of its own and would copy that whole buffer, stale bytes and
    /// all, before its next read if a part still shared it. Asked only of a
    /// large part: a request whose body is small never reads its scheme.
    private var sharesParts: Bool {
        !(request.url.scheme ?? "").lowercased().hasPrefix("https")
    }

    init(request: TransportRequest, transport: AsyncHTTPClientTransport, loop: (choice: EventLoopChoice, slot: Int)?,
         producer: BodyProducer?) {
        self.request = request
        self.transport = transport
        self.loop = loop
        self.producer = producer
        self.exchange = ResponseExchange(for: request)
    }

    /// The transfer was told to stop before the request started: the
    /// exchange ends here, since the start may never run (an event loop
    /// already shut down drops what is scheduled onto it, and nothing else
    /// would end the call).
    func stoppedBeforeItStarted() {
        end(failure: HTTPClientError.cancelled)
    }

    /// The client's task ended, however it ended: a client that was shut
    /// down fails the task without telling the delegate, and a streamed
    /// body's reading ends with the request.
    func taskEnded(_ result: Result<Void, any Error>) {
        if case .failure(let error) = result { fail(error) }
        producer?.cancel()
    }

    /// Ends the exchange; gives the event loop slot back the first time,
    /// before the caller is told, so its next request finds it given back.
    private func end(failure: (any Error)?) {
        exchange.end(failure: failure) {
            if let loop { loop.choice.release(loop.slot) }
        }
    }

    /// The response head, with the body whole or to be streamed.
    func response() async throws -> TransportResponse {
        try await exchange.response { body in
            let (head, decoded) = state.withLock { ($0.head, $0.decoder != nil) }
            guard let head else { throw URLError(.badServerResponse) }
            return makeResponse(head, body: body, decoded: decoded)
        }
    }

    private func makeResponse(_ head: HTTPResponseHead, body: ResponseBody, decoded: Bool) -> TransportResponse {
        // The fields in the order they arrived: a dictionary is made only if
        // one is read (every response passes here, and most are only mapped).
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            pairs.append((name: name, value: value))
        }
        return TransportResponse(statusCode: Int(head.status.code), url: request.url, headerFieldPairs: pairs, body: body,
                                 contentDecoded: decoded)
    }

    /// The buffer's bytes, copied in one go (`Data`'s initializer from a
    /// sequence is generic and asks at run time how to read it).
    private static func data(_ buffer: ByteBuffer) -> Data {
        buffer.withUnsafeReadableBytes { Data($0) }
    }

    /// A received part's bytes as `Data`: with `shares`, a large part that
    /// fills at least three quarters of its buffer is shared, not copied (the
    /// `Data` holds the buffer's storage, and the client copies a buffer it shares
    /// before it writes to it again, so the part's bytes never change), which
    /// keeps a copy of up to 64 KiB per part off the event loop; a small
    /// part, or one that would keep a much larger buffer alive while it
    /// waits unread, is copied. So the memory a queue of unread parts holds
    /// stays within a third more than the bytes its bounds count.
    ///
    /// A shared part that its reader changes in place (a subscript set)
    /// changes the client's buffer, in bytes nothing else reads again: the
    /// client has moved past them, as with SwiftNIO's own `Data` views
    /// (`ByteTransferStrategy.noCopy`).
    ///
    /// The deallocator holds the buffer's storage object, not the buffer:
    /// a closure whose only capture is one object needs no allocation of its
    /// own, so a shared part costs one allocation (the `Data`'s), where
    /// holding the buffer (an object and its indices) cost two.
    static func part(_ buffer: ByteBuffer, shares: @autoclosure () -> Bool = true) -> Data {
        let count = buffer.readableBytes
        guard count >= sharedPartMinimum, count * 4 >= buffer.storageCapacity * 3, shares() else { return data(buffer) }
        return buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard let base = bytes.baseAddress else { return Data() }
            let owner = storage.takeUnretainedValue()
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: count,
                        deallocator: .custom { _, _ in withExtendedLifetime(owner) {} })
        }
    }

    /// The smallest part shared instead of copied: below it, a copy costs
    /// less than the deallocator a shared part needs.
    static let sharedPartMinimum = 8 << 10

    /// The decoder for a response whose head names one `gzip`, `x-gzip` or
    /// `deflate` encoding, or `nil` when there is nothing to undo: no body
    /// (HEAD, 1xx, 204, 304), no encoding, or one this transport leaves as it
    /// is (another algorithm, or layers of them, which keep their
    /// `Content-Encoding` for a plugin to undo). The transfer stage's limits
    /// bound its output; a body that cannot be decoded fails with a
    /// `URLError` (`cannotDecodeContentData`) that says why.
    private static func decoder(for head: HTTPResponseHead, method: () -> String, url: URL) -> StreamingDecompression? {
        // The header first: most responses have none, and reading the method
        // goes through the request's storage.
        let status = head.status.code
        guard let header = head.headers.first(name: "Content-Encoding"), status >= 200, status != 204, status != 304,
              method() != "HEAD" else { return nil }
        guard let encodings = GzipPlugin.decodableEncodings(header), encodings.count == 1 else { return nil }
        return StreamingDecompression(encodings: encodings, limit: .max) { encoding, error in
            NetworkError(transportError: URLError(.cannotDecodeContentData, userInfo: [
                NSLocalizedDescriptionKey: "the \(encoding)-encoded body from \(URLRedactor.summary(url)) could not be decoded: \(error)",
                NSUnderlyingErrorKey: error,
            ]))
        }
    }

    // MARK: - HTTPClientResponseDelegate

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        let sent = state.withLock { state in
            state.sent += Int64(part.readableBytes)
            return state.sent
        }
        request.control.didSend(sent, of: request.bodyLength)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let decoder = request.decodesContent ? Self.decoder(for: head, method: { self.request.method }, url: request.url) : nil
        state.withLock { state in
            state.head = head
            state.decoder = decoder
        }
        exchange.receivedHead()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let decoder = state.withLock { state in
            state.received += Int64(buffer.readableBytes)
            return state.decoder
        }
        if let decoder { return receive(buffer, decodingWith: decoder, on: task.eventLoop) }
        // A collected part is counted before it is kept (past the limit the
        // parts collected so far are let go at once); a streamed one waits
        // for its reader.
        guard !request.collectsBody else {
            exchange.receivedBody(Self.part(buffer, shares: sharesParts))
            return task.eventLoop.makeSucceededVoidFuture()
        }
        // A promise only when the reader lags: most parts of a reader that
        // keeps up go on at once, on the loop's ready-made future.
        return handOn(Self.part(buffer, shares: sharesParts), on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
    }

    /// Decodes a part of an encoded body a slice at a time: a collected
    /// body counts each slice's output before it keeps it, as above; a
    /// streamed one hands the output on in chunks, each decoded only after
    /// the reader took the one before. A failure to decode fails the request.
    private func receive(_ buffer: ByteBuffer, decodingWith decoder: StreamingDecompression, on loop: any EventLoop) -> EventLoopFuture<Void> {
        guard request.collectsBody else { return stream(buffer, decodingWith: decoder, on: loop) }
        var input = buffer
        do {
            while let slice = input.readSlice(length: min(input.readableBytes, Self.sliceSize)), slice.readableBytes > 0 {
                let decoded = try decoder.decode(Self.data(slice))
                guard !decoded.isEmpty else { continue }
                guard exchange.receivedBody(decoded) else { break }
            }
            return loop.makeSucceededVoidFuture()
        } catch {
            return loop.makeFailedFuture(error)
        }
    }

    /// Decodes a part of a streamed body and hands the output on in chunks
    /// of ``decodedChunkSize``; the returned future completes once the
    /// reader may take more. A promise is made only for a chunk the reader
    /// lags behind, and the rest of the part is decoded once it took it.
    private func stream(_ input: ByteBuffer, decodingWith decoder: StreamingDecompression, on loop: any EventLoop) -> EventLoopFuture<Void> {
        var input = input
        var chunk = Data()
        do {
            while let slice = input.readSlice(length: min(input.readableBytes, Self.sliceSize)), slice.readableBytes > 0 {
                // A reader that stopped has its chunks dropped and let go at
                // once: decoding the rest of the part would be work for nobody.
                guard !request.control.isAborted else { return loop.makeSucceededVoidFuture() }
                chunk.append(try decoder.decode(Self.data(slice)))
                if chunk.count >= Self.decodedChunkSize, input.readableBytes > 0 {
                    if let taken = handOn(chunk, on: loop) {
                        let rest = input
                        return taken.flatMap { self.stream(rest, decodingWith: decoder, on: loop) }
                    }
                    chunk = Data()
                }
            }
        } catch {
            return loop.makeFailedFuture(error)
        }
        guard !chunk.isEmpty else { return loop.makeSucceededVoidFuture() }
        return handOn(chunk, on: loop) ?? loop.makeSucceededVoidFuture()
    }

    /// Hands `chunk` to the streamed body: `nil` when the client may read on
    /// at once, or the future that completes once the reader took it.
    ///
    /// A reader that waits is woken once at the end of this turn of the
    /// loop, not for each part: the client hands over every part of one
    /// read of the socket in one turn, and each wake schedules the reader's
    /// task on another thread, which costs the process the scheduling and
    /// two allocations (Dispatch's, made on a thread that is not
    /// Dispatch's). A task the loop runs after the
    /// turn's reads wakes it, as SwiftNIO's own async sequences do once per
    /// read.
    private func handOn(_ chunk: Data, on loop: any EventLoop) -> EventLoopFuture<Void>? {
        var consumed: EventLoopPromise<Void>?
        _ = exchange.receivedBody(chunk, wakesReader: false) {
            let promise = loop.makePromise(of: Void.self)
            consumed = promise
            return { promise.succeed() }
        }
        let schedules = state.withLock { state in
            defer { state.wakeScheduled = true }
            return !state.wakeScheduled
        }
        if schedules {
            loop.execute {
                self.state.withLock { $0.wakeScheduled = false }
                self.exchange.wakeReader()
            }
        }
        return consumed?.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        fail(error)
    }

    /// The request failed with `error`: the response that ended whole
    /// stands, a streamed body fails, and a call still waiting for its head
    /// gets the error as the client named it. Only the first ending counts.
    private func fail(_ error: any Error) {
        let (received, head, decoder) = state.withLock { ($0.received, $0.head, $0.decoder) }
        guard let head else { return end(failure: error) }
        // A response that ended whole stands, though the client failed the
        // request after it (see answeredBeforeTheRequestBodyEnded).
        if Self.answeredBeforeTheRequestBodyEnded(error), Self.isWhole(head, bytes: received) {
            end(failure: finish(decoder, received: received))
        } else {
            end(failure: AsyncHTTPClientTransport.foundationError(for: error))
        }
    }

    /// Whether `error` is AsyncHTTPClient stopping a request body because
    /// the server answered with a status of 300 or more. When the body's end
    /// was already on its way as the response ended, the client fails the
    /// request with it although the whole response arrived (a race inside
    /// the client, seen on 307s and 401s to a streamed upload).
    private static func answeredBeforeTheRequestBodyEnded(_ error: any Error) -> Bool {
        (error as? HTTPClientError) == .requestStreamCancelled
    }

    /// Whether `bytes` are the whole body the head announced: the response
    /// then stands. Without a `Content-Length` it cannot be told, and the
    /// failure stands instead.
    private static func isWhole(_ head: HTTPResponseHead, bytes: Int64) -> Bool {
        guard head.status.code >= 300, let length = head.headers.first(name: "Content-Length").flatMap(Int64.init) else {
            return false
        }
        return length == bytes
    }

    /// Whether the decoder, if any, ends where the body did: `nil` if so,
    /// the failure if the encoded stream was cut short. An empty body has
    /// nothing to undo.
    private func finish(_ decoder: StreamingDecompression?, received: Int64) -> (any Error)? {
        guard let decoder, received > 0 else { return nil }
        do {
            // One layer (see `decoder(for:method:url:)`): its end adds no bytes.
            _ = try decoder.finish()
            return nil
        } catch {
            return error
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let (received, decoder) = state.withLock { ($0.received, $0.decoder) }
        end(failure: finish(decoder, received: received))
    }
}

/// A request's start on its event loop, and what stops it: the transfer's
/// abort handler holds this, not the exchange. It holds the exchange only
/// until the client's task exists, then only the task, so the control the
/// exchange holds (through its request) and the handler the control keeps
/// for the call's life form no cycle once the request has started, and none
/// after a stop.
struct RequestStart: Sendable {
    private let state: Locked<StartStateMachine<Exchange, HTTPClient.Task<Void>>>

    init(_ exchange: Exchange) {
        state = Locked(StartStateMachine(waiting: exchange))
    }

    /// The request started as the client's `task`: cancelled at once if the
    /// transfer was told to stop before it started.
    func started(_ task: HTTPClient.Task<Void>) {
        if case .cancel(let task) = state.withLock({ $0.started(task) }) { task.cancel() }
    }

    /// The transfer was told to stop: the client's task is cancelled, and
    /// the client ends the exchange; before the request started, the
    /// exchange ends here.
    func stop() {
        switch state.withLock({ $0.stop() }) {
        case .none: break
        case .end(let exchange): exchange.stoppedBeforeItStarted()
        case .cancel(let task): task.cancel()
        }
    }
}
