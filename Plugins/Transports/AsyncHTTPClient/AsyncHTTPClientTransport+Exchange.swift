import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// One request through AsyncHTTPClient's delegate API: reports activity,
/// hands the head over as soon as it arrives (or the whole body, when the
/// transfer stage keeps it in memory) and the body chunk by chunk with
/// back-pressure. AsyncHTTPClient calls it on the task's event loop, one call
/// at a time.
final class Exchange: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    /// Encodings AsyncHTTPClient's decompressor decodes.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    private typealias Machine = AsyncHTTPClientExchangeStateMachine<
        CheckedContinuation<TransportResponse, any Error>, HTTPResponseHead, ByteBuffer, ResponseBodyWriter
    >

    private struct State {
        var machine: Machine
        var delivery: Machine.Delivery<Result<TransportResponse, any Error>> = .waiting(nil)
        var sent: Int64 = 0
        /// Body bytes handed to a streamed body's reader.
        var streamedBytes: Int64 = 0
        var head: HTTPResponseHead?
    }

    private let request: TransportRequest
    private let decoded: Bool
    private let maximumDecompressedSize: Int
    private let state: Locked<State>
    /// Where the request's event loop was chosen, and the slot to give back.
    private let loop: (choice: EventLoopChoice, slot: Int)?

    init(request: TransportRequest, decoded: Bool, maximumDecompressedSize: Int, loop: (choice: EventLoopChoice, slot: Int)?) {
        self.request = request
        self.decoded = decoded
        self.maximumDecompressedSize = maximumDecompressedSize
        self.loop = loop
        self.state = Locked(State(machine: Machine(collects: request.collectsBody)))
    }

    /// Marks the request ended and says how; gives the event loop slot back
    /// the first time.
    private func end() -> Machine.Ending {
        let (ending, first) = state.withLock { $0.machine.end() }
        if first, let loop { loop.choice.release(loop.slot) }
        return ending
    }

    /// The response head, with the body whole or to be streamed.
    func response() async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            if let ready = state.withLock({ $0.delivery.ask(continuation) }) { continuation.resume(with: ready) }
        }
    }

    private func deliver(_ result: Result<TransportResponse, any Error>) {
        state.withLock { $0.delivery.deliver(result) }?.resume(with: result)
    }

    private func makeResponse(_ head: HTTPResponseHead, body: ResponseBody) -> TransportResponse {
        // A repeated field joins the first one's value, whatever its case; the
        // names are compared in place, not lowercased copies (every response
        // passes here).
        var fields: [String: String] = [:]
        fields.reserveCapacity(head.headers.count)
        var names: [String] = []
        names.reserveCapacity(head.headers.count)
        for (name, value) in head.headers {
            if let key = names.first(where: { HeaderFields.equalIgnoringASCIICase($0, name) }), let existing = fields[key] {
                fields[key] = "\(existing), \(value)"
            } else {
                names.append(name)
                fields[name] = value
            }
        }
        let encoding = head.headers.first(name: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        return TransportResponse(statusCode: Int(head.status.code), url: request.url, headerFields: fields, body: body,
                                 contentDecoded: decoded && encoding.map(Self.decodedEncodings.contains) == true)
    }

    /// The buffer's bytes, copied in one go (`Data`'s initializer from a
    /// sequence is generic and asks at run time how to read it).
    private static func data(_ buffer: ByteBuffer) -> Data {
        buffer.withUnsafeReadableBytes { Data($0) }
    }

    private static func data(_ parts: [ByteBuffer]) -> Data {
        guard parts.count > 1 else { return parts.first.map(data) ?? Data() }
        var data = Data(capacity: parts.reduce(0) { $0 + $1.readableBytes })
        for part in parts {
            part.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        return data
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
        request.control.didReceiveHead()
        var body: ResponseBody?
        let streamed = state.withLock { state in
            state.head = head
            return state.machine.received(head: head) {
                let (made, writer) = ResponseBody.makeStream()
                body = made
                return writer
            }
        }
        if streamed != nil, let body { deliver(.success(makeResponse(head, body: body))) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // A collected part is counted before it is kept: past the limit the
        // parts collected so far are let go at once (the call fails with the
        // limit, not with them), so the body never takes more memory than
        // its limit. A streamed one waits for its reader instead.
        let collects = request.collectsBody
        let keep = !collects || request.control.didReceive(byteCount: buffer.readableBytes)
        guard case .yield(let writer) = state.withLock({ $0.machine.received(part: buffer, keep: keep) }) else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        state.withLock { $0.streamedBytes += Int64(buffer.readableBytes) }
        let consumed = task.eventLoop.makePromise(of: Void.self)
        writer.yield(Self.data(buffer)) { consumed.succeed() }
        return consumed.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        let (streamedBytes, streamHead) = state.withLock { ($0.streamedBytes, $0.head) }
        switch end() {
        case .streamed(let writer):
            if Self.answeredBeforeTheRequestBodyEnded(error), let head = streamHead, Self.isWhole(head, bytes: streamedBytes) {
                writer.finish()
            } else {
                writer.fail(failure(for: error))
            }
        case .collected(let head, let parts):
            if Self.answeredBeforeTheRequestBodyEnded(error), Self.isWhole(head, bytes: parts.reduce(0) { $0 + Int64($1.readableBytes) }) {
                deliver(.success(makeResponse(head, body: ResponseBody(Self.data(parts)))))
                return
            }
            // The head arrived and the body broke off.
            deliver(.success(makeResponse(head, body: .partial(Self.data(parts), failure: failure(for: error)))))
        case .headless:
            deliver(.failure(error))
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

    private func failure(for error: any Error) -> any Error {
        if let error = error as? NIOHTTPDecompression.DecompressionError, error == .limit {
            return NetworkError.responseTooLarge(ResponseTooLarge(limit: .decompressed, bytes: Int64(maximumDecompressedSize)))
        }
        return AsyncHTTPClientTransport.foundationError(for: error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        switch end() {
        case .streamed(let writer):
            writer.finish()
        case .collected(let head, let parts):
            deliver(.success(makeResponse(head, body: ResponseBody(Self.data(parts)))))
        case .headless:
            deliver(.failure(URLError(.badServerResponse)))
        }
    }
}
