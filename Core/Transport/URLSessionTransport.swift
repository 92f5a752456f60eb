import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``, on Foundation's `URLSession`.
///
/// It sends each request once and hands back what arrived: `URLSession`'s own
/// redirect following is off (the transfer stage follows redirects under one
/// set of rules for every transport), an authentication challenge is never
/// answered (a 401 comes back as a response at once, `WWW-Authenticate` and
/// all), and bodies are collected on the session's delegate queue, whole when
/// the transfer stage keeps them in memory, chunk by chunk otherwise.
///
/// On Linux, `CourierAsyncHTTPClient`'s transport is several times faster;
/// this one needs no package.
///
/// HTTPS: the system's roots on every platform. A ``ServerTrust`` with extra
/// roots or pins is honoured on Apple platforms through the session's
/// server-trust challenge; on Linux, where FoundationNetworking offers no
/// hook for custom trust, every HTTPS request it would apply to fails at once
/// with ``NetworkError/serverTrustFailed(_:)``
/// (``ServerTrustFailure/Reason/unsupportedSetting(_:)``), never ignoring it.
public final class URLSessionTransport: Transport {
    /// A transport shared by every provider that does not name its own.
    public static let shared = URLSessionTransport()

    /// A century: the longest time-out handed to Foundation.
    private static let longestTimeout: TimeInterval = 3_155_760_000

    private let session: URLSession
    private let delegate: SessionDelegate
    /// Which HTTPS servers this transport trusts.
    public let serverTrust: ServerTrust

    /// The most bytes of a streamed call's body held for a caller that reads
    /// it slower than it arrives; 32 MiB by default. (The transfer stage reads
    /// every other body as it arrives, into memory under its limits or to a
    /// file.)
    ///
    /// This transport cannot wait for its reader: `URLSession` offers no way
    /// to pause a transfer, and on Linux `suspend()` in the middle of a body
    /// drops the connection and, on `resume()`, sends the request again and
    /// delivers the body from its start after the bytes already delivered.
    /// So bytes that arrive faster than they are read wait in memory, up to
    /// this bound; past it the transfer stops at once (not when the reader
    /// next reads) and the call fails with
    /// ``NetworkError/responseTooLarge(_:)``
    /// (``ResponseTooLarge/Limit/readAhead``). Each unread chunk counts
    /// 128 bytes beyond its own for its bookkeeping, so a server that sends
    /// tiny chunks cannot queue more records than bytes. Bodies kept in memory are
    /// bounded by the transfer stage's limits instead. A transport that
    /// waits for its reader (`AsyncHTTPClientTransport`) never needs this.
    public let maximumUnreadBytes: Int

    /// The configuration a transport gets when it is given none:
    /// `URLSessionConfiguration.default` without Foundation's URL cache.
    ///
    /// Foundation's shared `URLCache` writes whole responses to disk on Apple
    /// platforms, under their full URLs, queries and the tokens they carry
    /// included; caching is left to a plugin, which can key entries without
    /// secrets. Give a configuration of your own to keep `URLCache`.
    public static var defaultSessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// The configuration of the transport's `URLSession` (a copy: changing it
    /// changes nothing).
    public var sessionConfiguration: URLSessionConfiguration { session.configuration }

    /// Creates a transport with its own `URLSession`.
    /// - Parameters:
    ///   - sessionConfiguration: The session's configuration (connection
    ///     limits, cookies, proxies); ``defaultSessionConfiguration`` when not
    ///     given. Time-outs come from the requests, which the transfer stage
    ///     enforces.
    ///   - serverTrust: Which HTTPS servers are trusted (see the type's
    ///     documentation for Linux).
    ///   - maximumUnreadBytes: The most bytes of a streamed body held for a
    ///     reader that falls behind; see ``maximumUnreadBytes``.
    public init(
        sessionConfiguration: URLSessionConfiguration = URLSessionTransport.defaultSessionConfiguration,
        serverTrust: ServerTrust = .system,
        maximumUnreadBytes: Int = 32 << 20
    ) {
        let delegate = SessionDelegate(serverTrust: serverTrust)
        self.serverTrust = serverTrust
        self.maximumUnreadBytes = max(maximumUnreadBytes, 1)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "Courier.URLSessionTransport"
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        #if !canImport(Security)
        try refuseCustomTrust(for: request.url)
        #endif
        var urlRequest = request.urlRequest
        // URLSession on Linux truncates time-outs to whole seconds (0.3 s
        // times out at once) and traps on one it cannot count in milliseconds
        // (infinity, 1e300); the transfer stage enforces the exact one, so the
        // session's own is a backstop well past it and kept within a century.
        // Far past it: the transfer stage's idle clock runs only while a
        // reader waits, and its timer is a task that a busy machine can wake
        // seconds late, while the session's clock counts from the last byte
        // on a queue of its own. A backstop close behind (twice the time-out
        // plus a second) won that race in a loaded test run, and the failure
        // named URLSession's time-out instead of the transfer stage's reason.
        var timeout = urlRequest.timeoutInterval
        if !(timeout <= Self.longestTimeout) { timeout = Self.longestTimeout }
        if timeout < Self.longestTimeout { timeout = max(1, timeout.rounded(.up)) * 2 + 60 }
        if timeout != urlRequest.timeoutInterval {
            urlRequest.timeoutInterval = timeout
        }
        if request.bodyStream != nil {
            // The provider reads a stream whole for this transport
            // (`sendsStreamedBodies` is false); a wrapper that hands one on
            // would send a Content-Length and no body.
            throw .requestBuildFailed(RequestBuildFailure.unreadableBodyStream(
                "URLSessionTransport cannot send a body as it is made; read it first, or leave sendsStreamedBodies false"))
        }
        let task: URLSessionTask
        if let file = request.uploadFile {
            task = session.uploadTask(with: urlRequest, fromFile: file)
        } else if let body = urlRequest.httpBody {
            urlRequest.httpBody = nil
            task = session.uploadTask(with: urlRequest, from: body)
        } else {
            task = session.dataTask(with: urlRequest)
        }
        let exchange = Exchange(collects: request.collectsBody, control: request.control, bodyLength: request.bodyLength,
                                maximumUnreadBytes: request.handsBodyToCaller ? maximumUnreadBytes : nil)
        delegate.register(exchange, for: task)
        do {
            let received = try await withCheckedThrowingContinuation { continuation in
                exchange.start(continuation)
                request.control.onAbort { task.cancel() }
                task.resume()
            }
            return Exchange.makeResponse(received)
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    /// FoundationNetworking takes its roots from the system's bundle and
    /// offers no hook to change them per session.
    private func refuseCustomTrust(for url: URL) throws(NetworkError) {
        guard url.scheme?.lowercased() == "https" else { return }
        let host = url.host ?? ""
        let setting = !serverTrust.additionalRootCertificates.isEmpty ? "extra root certificates"
            : serverTrust.pins(for: host) != nil ? "certificate pins" : nil
        guard let setting else { return }
        throw .serverTrustFailed(ServerTrustFailure(host: host, reason: .unsupportedSetting(
            "URLSessionTransport cannot use \(setting) on Linux: FoundationNetworking offers no hook for custom certificate "
                + "trust. Use a transport that evaluates trust itself (the documentation's \"Choosing a transport\" "
                + "names one), or leave \(setting) out of this transport's ServerTrust")))
    }
}

// MARK: - One exchange

/// One task's state, written on the delegate queue and read by the awaiting
/// task.
private final class Exchange: @unchecked Sendable {
    /// Encodings `URLSession` decodes by itself while leaving
    /// `Content-Encoding` in the header fields.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]

    private typealias Machine = URLSessionExchangeStateMachine<CheckedContinuation<Received, any Error>, ResponseBodyWriter>

    let control: TransferControl
    let bodyLength: Int64
    let maximumUnreadBytes: Int?
    private let state: Locked<Machine>

    init(collects: Bool, control: TransferControl, bodyLength: Int64, maximumUnreadBytes: Int?) {
        self.control = control
        self.bodyLength = bodyLength
        self.maximumUnreadBytes = maximumUnreadBytes
        self.state = Locked(Machine(collects: collects))
    }

    func start(_ continuation: CheckedContinuation<Received, any Error>) {
        state.withLock { $0.start(continuation) }
    }

    func received(_ head: HTTPURLResponse) {
        control.didReceiveHead()
        var body: ResponseBody?
        let continuation = state.withLock { machine in
            machine.received(head: head) {
                let (streamed, writer) = ResponseBody.makeStream(maximumUnreadBytes: maximumUnreadBytes)
                body = streamed
                return writer
            }
        }
        if let continuation, let body { continuation.resume(returning: Received(head: head, body: body)) }
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

// MARK: - The session delegate

private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])
    let serverTrust: ServerTrust

    init(serverTrust: ServerTrust) {
        self.serverTrust = serverTrust
    }

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse {
            exchange(for: dataTask)?.received(response)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.sent(totalBytesSent)
    }

    /// Never follows: the transfer stage does, under one set of rules.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Foundation on Linux never finishes a task whose 401 or 407 carries a
    /// challenge unless the challenge is answered, and answering with "default
    /// handling" hangs as well. Its head and body have arrived by now, so the
    /// challenge is cancelled and the response handed over as it is.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            // Evaluated here even for the system's trust, so a refusal comes
            // with its reason instead of one code for every kind.
            let host = challenge.protectionSpace.host
            guard let trust = challenge.protectionSpace.serverTrust else {
                exchange(for: task)?.refusedTrust(ServerTrustFailure(host: host, reason: .handshakeFailed("no certificate to evaluate")))
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
            if let failure = ServerTrustEvaluation.failure(of: trust, host: host, configuration: serverTrust) {
                exchange(for: task)?.refusedTrust(failure)
                completionHandler(.cancelAuthenticationChallenge, nil)
            } else {
                completionHandler(.useCredential, URLCredential(trust: trust))
            }
            return
        }
        #endif
        exchange(for: task)?.challenged()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.completed(task, error: error)
    }
}
