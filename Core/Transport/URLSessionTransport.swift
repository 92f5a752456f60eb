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

    let session: URLSession
    private let delegate: SessionDelegate
    /// Where this transport's tasks are cancelled, one at a time, and where
    /// its delegate answers a challenge (Foundation cancels inside the answer).
    /// `URLSessionTask.cancel()` waits for the session's work queue; called
    /// where a transfer was aborted (every provider's watchdog has a queue of
    /// its own), each waiting call held a thread of Dispatch's pool, and a
    /// burst of time-outs while the work queue was busy took all 255 of them:
    /// the work queue then had no thread to run on, and the process stopped
    /// (seen once in a full test run). Here at most one thread waits.
    private let cancellations = DispatchQueue(label: "Courier.URLSessionTransport.cancellations")
    /// Which HTTPS servers this transport trusts.
    public let serverTrust: ServerTrust

    /// The most bytes of a body held for a reader that reads it slower than
    /// it arrives; 32 MiB by default. It bounds a streamed call's body, read
    /// by its caller, and a download's, which the transfer stage writes as it
    /// arrives but which a slow disk or a busy machine can hold up. (A body
    /// kept in memory, whole or read with a progress handler, is counted
    /// against its size limit as it arrives, which bounds it instead.)
    ///
    /// This transport cannot wait for its reader: `URLSession` offers no way
    /// to pause a transfer, and on Linux `suspend()` in the middle of a body
    /// drops the connection and, on `resume()`, sends the request again and
    /// delivers the body from its start after the bytes already delivered.
    /// Holding libcurl's thread until the reader catches up is no way either:
    /// FoundationNetworking runs every session's transfers on one queue for
    /// the whole process, so one slow reader would stall every `URLSession`
    /// call the process makes, a session of its own or not.
    /// So bytes that arrive faster than they are read wait in memory, up to
    /// this bound; past it the transfer stops at once (not when the reader
    /// next reads) and the call fails with
    /// ``NetworkError/responseTooLarge(_:)``
    /// (``ResponseTooLarge/Limit/readAhead``). Each unread chunk counts
    /// 128 bytes beyond its own for its bookkeeping, so a server that sends
    /// tiny chunks cannot queue more records than bytes. A body collected
    /// whole is bounded by the transfer stage's limits instead. A transport
    /// that waits for its reader (`AsyncHTTPClientTransport`) never needs this.
    public let maximumUnreadBytes: Int

    /// Whether a body the server compresses is taken; `false` by default.
    ///
    /// `URLSession` decodes every encoding it knows (gzip, deflate, and on
    /// Linux br and zstd) by itself, ahead of its delegate queue and so ahead
    /// of the transfer stage, which counts a body's size limits only once the
    /// bytes reach it: a gigabyte of zeros fits in a megabyte of gzip. So by
    /// default every request asks for `identity`, whatever the target or a
    /// plugin asked for, and an answer compressed anyway fails at its head,
    /// before its body is read, with ``NetworkError/invalidResponse(_:)``
    /// (``RefusedContentEncoding``). An answer without a body (to `HEAD`, a
    /// 204 or 304) is never refused.
    ///
    /// Set it for servers you trust to have their bodies compressed and
    /// decoded: requests then ask for what the transfer stage asks for (`gzip,
    /// deflate`), and a compressed body is decoded by `URLSession`, then
    /// counted against the limits. On Linux the session's delegate queue
    /// makes libcurl wait while 64 decoded chunks are queued, so a bomb
    /// stops at the limit with a bounded read-ahead (a 1 GB gzip bomb from
    /// nginx in another process grew the process by 69–70 MiB; before that
    /// queue, by 1.1 GiB on a loaded machine). Elsewhere, how far `URLSession`
    /// decodes ahead is Foundation's. `AsyncHTTPClientTransport` decodes
    /// within the limits as bytes arrive and needs no such choice.
    public let decodesCompressedResponses: Bool

    /// Whether the session's own header fields ask for `identity`, so that a
    /// request naming no `Accept-Encoding` needs no field of its own.
    private let sessionAsksForIdentity: Bool

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
    /// changes nothing): the one it was given, on Linux with
    /// `Accept-Encoding: identity` among its additional header fields unless
    /// ``decodesCompressedResponses``.
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
    ///   - decodesCompressedResponses: Whether a compressed body is taken and
    ///     decoded without a bound on its memory, for servers you trust; see
    ///     ``decodesCompressedResponses``.
    public init(
        sessionConfiguration: URLSessionConfiguration = URLSessionTransport.defaultSessionConfiguration,
        serverTrust: ServerTrust = .system,
        maximumUnreadBytes: Int = 32 << 20,
        decodesCompressedResponses: Bool = false
    ) {
        let delegate = SessionDelegate(serverTrust: serverTrust, cancellations: cancellations)
        self.serverTrust = serverTrust
        self.maximumUnreadBytes = max(maximumUnreadBytes, 1)
        self.decodesCompressedResponses = decodesCompressedResponses
        self.delegate = delegate
        let (configuration, asksForIdentity) = Self.asking(forIdentity: !decodesCompressedResponses, sessionConfiguration)
        self.sessionAsksForIdentity = asksForIdentity
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: Self.makeDelegateQueue())
    }

    /// A copy of `configuration` whose requests ask for `identity` unless
    /// they name an encoding, when `identity` is what this transport takes:
    /// the session adds the field where it writes the head, so a request
    /// that names none is sent as it is, not copied to carry it. An
    /// `Accept-Encoding` among the configuration's own fields gives way.
    /// Only with FoundationNetworking, where the session's fields were seen
    /// to reach the wire; elsewhere, and when no copy can be made, each
    /// request carries the field itself.
    private static func asking(forIdentity: Bool, _ configuration: URLSessionConfiguration) -> (URLSessionConfiguration, Bool) {
        #if canImport(FoundationNetworking)
        guard forIdentity, let copy = configuration.copy() as? URLSessionConfiguration else { return (configuration, false) }
        var fields = (copy.httpAdditionalHeaders ?? [:]).filter { name, _ in
            !((name.base as? String).map { HeaderFields.equalIgnoringASCIICase($0, "Accept-Encoding") } ?? false)
        }
        fields["Accept-Encoding"] = "identity"
        copy.httpAdditionalHeaders = fields
        return (copy, true)
        #else
        return (configuration, false)
        #endif
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// A serial queue for the session's delegate, whose blocks run on a
    /// dispatch queue of its own: Dispatch's global queue, where an
    /// `OperationQueue` runs them by default, may have no thread free when
    /// the app's own blocks wait there. On Linux it makes libcurl wait while
    /// 64 chunks wait in it (``BoundedOperationQueue``).
    private static func makeDelegateQueue() -> OperationQueue {
        let label = "Courier.URLSessionTransport"
        #if canImport(FoundationNetworking)
        let queue = BoundedOperationQueue(limit: 64, label: label)
        #else
        let queue = OperationQueue()
        // Foundation keeps it (declared `unowned(unsafe)`, but retained).
        let runner = DispatchQueue(label: label)
        queue.underlyingQueue = runner
        #endif
        queue.maxConcurrentOperationCount = 1
        queue.name = label
        return queue
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
        let asked = urlRequest.value(forHTTPHeaderField: "Accept-Encoding")
        if !decodesCompressedResponses {
            // One that names none asks for the session's `identity`, where the
            // session's own fields carry it.
            if asked.map({ $0 != "identity" }) ?? !sessionAsksForIdentity {
                urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
        } else if asked == nil {
            urlRequest.setValue(request.acceptEncoding, forHTTPHeaderField: "Accept-Encoding")
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
        // Every body read as it arrives is bounded: the caller of a streamed
        // call may read slowly, and the transfer stage's own reading of a
        // download can fall behind too (a slow disk, a busy machine), while a
        // download's limit counts only what was written. A body counted
        // against a limit as it arrives (one kept in memory, read with
        // progress) is bounded by that count already.
        let boundsUnread = request.handsBodyToCaller || !request.collectsBody && !request.control.limitsArrivals
        let exchange = URLSessionExchange(request, maximumUnreadBytes: boundsUnread ? maximumUnreadBytes : nil,
                                          refusesCompressedBody: !decodesCompressedResponses && urlRequest.httpMethod != "HEAD")
        delegate.register(exchange, for: task)
        request.control.onAbort { [cancellations] in
            // Never where the abort happens: `cancel()` waits for the
            // session's work queue, which may be waiting for the delegate
            // queue (a limit passed in a delegate method, see
            // `BoundedOperationQueue`), and every thread that waits for it is
            // one Dispatch's pool lacks.
            cancellations.async { task.cancel() }
        }
        task.resume()
        do {
            return try await exchange.response()
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

// MARK: - The session delegate

private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let exchanges = Locked<[Int: URLSessionExchange]>([:])
    let serverTrust: ServerTrust
    /// The transport's queue for calls that wait for the session's work queue.
    private let cancellations: DispatchQueue

    init(serverTrust: ServerTrust, cancellations: DispatchQueue) {
        self.serverTrust = serverTrust
        self.cancellations = cancellations
    }

    func register(_ exchange: URLSessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse, exchange(for: dataTask)?.received(response) == false {
            completionHandler(.cancel)
            return
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
    ///
    /// The answer is given on the transport's cancellation queue, not here:
    /// FoundationNetworking cancels the task inside the answer, and
    /// `cancel()` waits for its work queue. That queue may be waiting for
    /// this delegate queue to drain (``BoundedOperationQueue``) while another
    /// body arrives fast: then each of its chunks waited the bound's tenth of a
    /// second, the delegate waited for the work queue, and every call that
    /// starts a task waited behind both (seen in a full test run: every
    /// request in flight reached its 60 s time-out).
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
        cancellations.async { completionHandler(.cancelAuthenticationChallenge, nil) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.completed(task, error: error)
    }
}
