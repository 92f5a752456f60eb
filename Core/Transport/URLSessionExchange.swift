import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one task reports, from the session's delegate queue, fed to the
/// task's ``ResponseExchange``; the rules `URLSession` needs beside it: a
/// compressed answer refused at its head, a refused challenge that ends with
/// its response, a refused certificate that is the failure whatever the task
/// then reports.
final class URLSessionExchange: Sendable {
    /// Encodings `URLSession` decodes by itself while leaving
    /// `Content-Encoding` in the header fields.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]

    /// What the task reported that the exchange leaves to its transport.
    private struct Reported: Sendable {
        var head: HTTPURLResponse?
        /// A 401 or 407 challenge was refused, so the task ends with its
        /// response, not with the cancellation it reports.
        var challenged = false
    }

    let exchange: ResponseExchange
    let control: TransferControl
    let bodyLength: Int64
    /// Whether a head that says its body is compressed ends the exchange.
    let refusesCompressedBody: Bool
    private let reported = Locked(Reported())

    init(_ request: TransportRequest, maximumUnreadBytes: Int?, refusesCompressedBody: Bool) {
        exchange = ResponseExchange(for: request, maximumUnreadBytes: maximumUnreadBytes)
        control = request.control
        bodyLength = request.bodyLength
        self.refusesCompressedBody = refusesCompressedBody
    }

    /// The head arrived. Returns `false` when it is refused, and the task
    /// is to be cancelled before its body is read.
    func received(_ head: HTTPURLResponse) -> Bool {
        if refusesCompressedBody, let encoding = Self.compression(of: head) {
            exchange.end(failure: NetworkError.invalidResponse(RefusedContentEncoding(contentEncoding: encoding)))
            return false
        }
        reported.withLock { $0.head = head }
        exchange.receivedHead()
        return true
    }

    /// The response, from the head and body as Foundation gave them.
    func response() async throws -> TransportResponse {
        try await exchange.response { body in
            guard let head = reported.withLock({ $0.head }) else { throw URLError(.badServerResponse) }
            return Self.makeResponse(head, body: body)
        }
    }

    /// The head's `Content-Encoding` when it names one that `URLSession`
    /// decodes by itself and the answer has a body.
    private static func compression(of head: HTTPURLResponse) -> String? {
        guard head.statusCode >= 200, head.statusCode != 204, head.statusCode != 304,
              let encoding = head.value(forHTTPHeaderField: "Content-Encoding") else { return nil }
        let codings = encoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return codings.contains(where: decodedEncodings.contains) ? encoding : nil
    }

    /// Body bytes arrived. `URLSession` cannot wait for a reader, so the
    /// exchange counts every part as it arrives: a body past its limit
    /// stops here, and what Foundation still delivers once the transfer was
    /// stopped is dropped.
    func received(_ data: Data) {
        exchange.receivedBody(data)
    }

    func sent(_ total: Int64) {
        control.didSend(total, of: bodyLength)
    }

    /// A 401 or 407 with a challenge: its head and body have arrived, and the
    /// challenge is refused so the task ends and the response is handed over.
    func challenged() {
        reported.withLock { $0.challenged = true }
    }

    /// The server's certificate was refused by the session's server-trust
    /// evaluation: that is the failure, whatever the cancelled task reports.
    func refusedTrust(_ failure: ServerTrustFailure) {
        exchange.end(failure: NetworkError.serverTrustFailed(failure))
    }

    func completed(_ task: URLSessionTask, error: (any Error)?) {
        let (challenged, reportedHead) = reported.withLock { ($0.challenged, $0.head != nil) }
        // A task may end without reporting its head (a refused challenge
        // does): the task still has it. (After a refused head the exchange
        // has ended, and ignores it.)
        if !reportedHead, let head = task.response as? HTTPURLResponse {
            reported.withLock { $0.head = head }
            exchange.receivedHead()
        }
        exchange.end(failure: challenged ? nil : error.map(Self.translated))
    }

    /// Foundation on Linux reports a status line it cannot read as an
    /// unsupported URL; the URL was checked before sending, so it is the
    /// response that cannot be parsed.
    private static func translated(_ error: any Error) -> any Error {
        guard let error = error as? URLError, error.code == .unsupportedURL else { return error }
        return URLError(.cannotParseResponse, userInfo: [NSUnderlyingErrorKey: error])
    }

    /// The response from the head and body as Foundation gave them, made in
    /// the awaiting task, so the serial delegate queue, which every request
    /// of the session shares, does no more than it must.
    private static func makeResponse(_ head: HTTPURLResponse, body: ResponseBody) -> TransportResponse {
        var pairs: [(name: String, value: String)] = []
        // Foundation hands over a 3xx response's head but drops its body, so
        // its Content-Length no longer applies.
        let dropsLength = (300..<400).contains(head.statusCode)
        for (name, value) in head.allHeaderFields {
            // The key's base, not the key, is cast: casting an `AnyHashable`
            // itself goes through its box first, for every field.
            guard let name = name.base as? String, let value = value as? String else { continue }
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
