import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One task's state, written on the delegate queue and read by the awaiting
/// task.
final class URLSessionExchange: @unchecked Sendable {
    /// Encodings `URLSession` decodes by itself while leaving
    /// `Content-Encoding` in the header fields.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]

    private typealias Machine = URLSessionExchangeStateMachine<CheckedContinuation<Received, any Error>, ResponseBodyWriter>

    let control: TransferControl
    let bodyLength: Int64
    /// Whether a head that says its body is compressed ends the exchange.
    let refusesCompressedBody: Bool
    /// A streamed exchange's body, made here by the sending task rather than
    /// on the delegate queue when the head arrives: the awaiting task then
    /// reads only what it made itself, and the delegate queue reaches the
    /// stream through its lock alone.
    private let streamed: (body: ResponseBody, writer: ResponseBodyWriter)?
    private let state: Locked<Machine>

    init(collects: Bool, control: TransferControl, bodyLength: Int64, maximumUnreadBytes: Int?, refusesCompressedBody: Bool) {
        self.control = control
        self.bodyLength = bodyLength
        self.refusesCompressedBody = refusesCompressedBody
        self.streamed = collects ? nil : ResponseBody.makeStream(maximumUnreadBytes: maximumUnreadBytes)
        self.state = Locked(Machine(streamingTo: streamed?.writer))
    }

    func start(_ continuation: CheckedContinuation<Received, any Error>) {
        state.withLock { $0.start(continuation) }
    }

    /// The head arrived. Returns `false` when it is refused, and the task
    /// is to be cancelled before its body is read.
    func received(_ head: HTTPURLResponse) -> Bool {
        control.didReceiveHead()
        if refusesCompressedBody, let encoding = Self.compression(of: head) {
            let continuation = state.withLock { $0.refused() }
            continuation?.resume(throwing: NetworkError.invalidResponse(RefusedContentEncoding(contentEncoding: encoding)))
            return false
        }
        let continuation = state.withLock { $0.received(head: head) }
        if let continuation, let streamed { continuation.resume(returning: Received(head: head, body: streamed.body)) }
        return true
    }

    /// The head's `Content-Encoding` when it names one that `URLSession`
    /// decodes by itself and the answer has a body.
    private static func compression(of head: HTTPURLResponse) -> String? {
        guard head.statusCode >= 200, head.statusCode != 204, head.statusCode != 304,
              let encoding = head.value(forHTTPHeaderField: "Content-Encoding") else { return nil }
        let codings = encoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.contains(where: decodedEncodings.contains) ? encoding : nil
    }

    func received(_ data: Data) {
        // Counted before it is kept, collected or streamed: what would pass
        // the limit, and what Foundation still delivers once the transfer was
        // stopped (a limit, a time-out), is dropped. A streamed body is
        // counted as it arrives too: this transport cannot wait for its
        // reader, so a body past its limit stops here.
        let keep = control.didReceive(byteCount: data.count)
        if case .yield(let writer) = state.withLock({ $0.received(data, keep: keep) }) {
            writer.yield(data)
        }
    }

    func sent(_ total: Int64) {
        control.didSend(total, of: bodyLength)
    }

    /// A 401 or 407 with a challenge: its head and body have arrived, and the
    /// challenge is refused so the task ends and the response is handed over.
    func challenged() {
        state.withLock { $0.refusedChallenge() }
    }

    /// The server's certificate was refused by the session's server-trust
    /// evaluation; the task ends cancelled, and this is why.
    func refusedTrust(_ failure: ServerTrustFailure) {
        state.withLock { $0.refusedTrust(failure) }
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        let failure = error.map(Self.translated)
        switch state.withLock({ $0.completed(error: failure) { task.response as? HTTPURLResponse } }) {
        case .finish(let writer, nil):
            writer.finish()
        case .finish(let writer, let failure?):
            writer.fail(failure)
        case .respond(let continuation, let head, let body):
            continuation.resume(returning: Received(head: head, body: ResponseBody(body)))
        case .respondPartially(let continuation, let head, let body, let failure):
            // The head arrived and the body broke off.
            continuation.resume(returning: Received(head: head, body: .partial(body, failure: failure)))
        case .fail(let continuation, let failure):
            continuation.resume(throwing: failure)
        case .none:
            break
        }
    }

    /// Foundation on Linux reports a status line it cannot read as an
    /// unsupported URL; the URL was checked before sending, so it is the
    /// response that cannot be parsed.
    private static func translated(_ error: any Error) -> any Error {
        guard let error = error as? URLError, error.code == .unsupportedURL else { return error }
        return URLError(.cannotParseResponse, userInfo: [NSUnderlyingErrorKey: error])
    }

    /// What the delegate queue hands over: the head and body as Foundation
    /// gave them. They become a ``TransportResponse`` in the awaiting task, so
    /// the serial delegate queue, which every request of the session shares,
    /// does no more than it must.
    struct Received: Sendable {
        let head: HTTPURLResponse
        let body: ResponseBody
    }

    static func makeResponse(_ received: Received) -> TransportResponse {
        let head = received.head
        let body = received.body
        var pairs: [(name: String, value: String)] = []
        // Foundation hands over a 3xx response's head but drops its body, so
        // its Content-Length no longer applies.
        let dropsLength = (300..<400).contains(head.statusCode)
        for (name, value) in head.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            if dropsLength, name.lowercased() == "content-length" { continue }
            pairs.append((name: name, value: value))
        }
        // On Linux, Foundation keeps a name sent in two spellings (`X-Tag`,
        // `x-tag`) as two fields, in no fixed order: in the order of their
        // spellings they join into one value that is the same on every run,
        // as on every other transport. (The order they arrived in is lost.)
        pairs.sort { $0.name < $1.name }
        var response = TransportResponse(statusCode: head.statusCode, url: head.url ?? URL(fileURLWithPath: "/"),
                                         headerFieldPairs: pairs, body: body)
        let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        response.contentDecoded = encoding.map(Self.decodedEncodings.contains) ?? false
        return response
    }
}
