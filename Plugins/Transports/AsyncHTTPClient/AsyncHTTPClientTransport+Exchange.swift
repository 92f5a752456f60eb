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

    private struct State {
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var result: Result<TransportResponse, any Error>?
        var head: HTTPResponseHead?
        /// The body's parts as they arrived, joined once at the end: a buffer
        /// grown by appending would copy itself as it doubles, and hold up to
        /// three times the body at a time.
        var collected: [ByteBuffer] = []
        var writer: ResponseBodyWriter?
        var sent: Int64 = 0
        /// Whether the request ended (finished or failed) and gave its event
        /// loop slot back.
        var ended = false
    }

    private let request: TransportRequest
    private let decoded: Bool
    private let maximumDecompressedSize: Int
    private let state = Locked(State())
    /// Where the request's event loop was chosen, and the slot to give back.
    private let loop: (choice: EventLoopChoice, slot: Int)?

    init(request: TransportRequest, decoded: Bool, maximumDecompressedSize: Int, loop: (choice: EventLoopChoice, slot: Int)?) {
        self.request = request
        self.decoded = decoded
        self.maximumDecompressedSize = maximumDecompressedSize
        self.loop = loop
    }

    /// Reads what the request's end needs and marks it ended; gives the
    /// event loop slot back the first time.
    private func end() -> (head: HTTPResponseHead?, collected: [ByteBuffer], writer: ResponseBodyWriter?) {
        let (parts, first) = state.withLock { state in
            defer {
                state.ended = true
                state.collected = []
            }
            return ((state.head, state.collected, state.writer), !state.ended)
        }
        if first, let loop { loop.choice.release(loop.slot) }
        return parts
    }

    /// The response head, with the body whole or to be streamed.
    func response() async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<TransportResponse, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func deliver(_ result: Result<TransportResponse, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
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
        if request.collectsBody {
            state.withLock { $0.head = head }
        } else {
            let (body, writer) = ResponseBody.makeStream()
            state.withLock {
                $0.head = head
                $0.writer = writer
            }
            deliver(.success(makeResponse(head, body: body)))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        if let writer = state.withLock({ $0.writer }) {
            let consumed = task.eventLoop.makePromise(of: Void.self)
            writer.yield(Self.data(buffer)) { consumed.succeed() }
            return consumed.futureResult
        }
        // Counted before it is kept: past the limit the bytes collected so far
        // are let go at once (the call fails with the limit, not with them),
        // so the body never takes more memory than its limit.
        guard request.control.didReceive(byteCount: buffer.readableBytes) else {
            state.withLock { $0.collected = [] }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        state.withLock { $0.collected.append(buffer) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        let (head, collected, writer) = end()
        if let writer {
            writer.fail(failure(for: error))
        } else if let head {
            // The head arrived and the body broke off.
            let received = Self.data(collected)
            deliver(.success(makeResponse(head, body: .partial(received, failure: failure(for: error)))))
        } else {
            deliver(.failure(error))
        }
    }

    private func failure(for error: any Error) -> any Error {
        if let error = error as? NIOHTTPDecompression.DecompressionError, error == .limit {
            return NetworkError.responseTooLarge(ResponseTooLarge(limit: .decompressed, bytes: Int64(maximumDecompressedSize)))
        }
        return AsyncHTTPClientTransport.foundationError(for: error)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let (head, collected, writer) = end()
        if let writer {
            writer.finish()
        } else if let head {
            let data = Self.data(collected)
            deliver(.success(makeResponse(head, body: ResponseBody(data))))
        } else {
            deliver(.failure(URLError(.badServerResponse)))
        }
    }
}
