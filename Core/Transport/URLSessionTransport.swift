import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``, on Foundation's `URLSession`.
///
/// It streams downloads to disk chunk by chunk (never through Foundation's
/// download tasks, which write corrupted files on Linux when progress is
/// observed), reports progress both ways in order, follows 307 and 308
/// redirects itself so a body is never silently dropped, strips credentials
/// from redirects to another origin, and hands over bodies with the
/// `Content-Encoding` header removed when `URLSession` has already decoded them.
/// A request with nothing to observe (no progress handler, no file either way,
/// a whole-second time-out) goes through `URLSession`'s async `data(for:)` and
/// `upload(for:from:)`, which hand the body over once, under the same redirect
/// rules.
///
/// On Linux, `CourierAsyncHTTPClient`'s transport is several times faster;
/// this one needs no package.
public final class URLSessionTransport: Transport {
    /// How the transport follows redirects.
    public struct Configuration: Sendable {
        /// Whether redirects are followed at all. When `false`, a 3xx response
        /// is returned as it is.
        public var followsRedirects: Bool
        /// How many redirects one request may follow before it fails.
        public var maximumRedirects: Int

        public init(followsRedirects: Bool = true, maximumRedirects: Int = 10) {
            self.followsRedirects = followsRedirects
            self.maximumRedirects = maximumRedirects
        }
    }

    /// A transport shared by every provider that does not name its own.
    public static let shared = URLSessionTransport()

    /// The configuration in force.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate
    /// The session configuration's request time-out, read once (the session's
    /// `configuration` property returns a new copy on every read).
    private let defaultTimeout: TimeInterval

    /// Creates a transport with its own `URLSession`.
    /// - Parameters:
    ///   - sessionConfiguration: The session's configuration (time-outs,
    ///     connection limits, cookies, proxies). Its `timeoutIntervalForRequest`
    ///     applies to targets whose `timeout` is `nil`.
    ///   - configuration: How redirects are followed.
    public init(
        sessionConfiguration: URLSessionConfiguration = .default,
        configuration: Configuration = Configuration()
    ) {
        self.configuration = configuration
        let delegate = SessionDelegate(followsRedirects: configuration.followsRedirects)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "Courier.URLSessionTransport"
        self.delegate = delegate
        self.defaultTimeout = sessionConfiguration.timeoutIntervalForRequest
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: TransportRequest) async throws -> Response {
        var current = request.urlRequest
        let timeout = request.timeout ?? defaultTimeout
        // URLSession on Linux truncates time-outs to whole seconds (0.3 s times
        // out at once). It gets the time-out rounded up; a fractional one is
        // enforced by the transport's own idle watchdog.
        current.timeoutInterval = max(1, timeout.rounded(.up))
        let watchdogTimeout = timeout.rounded(.up) == timeout ? nil : max(0.001, timeout)
        var redirects = 0
        while true {
            let completed: CompletedTask
            do {
                completed = try await transmit(current, request: request, watchdogTimeout: watchdogTimeout)
            } catch {
                throw NetworkError(transportError: error)
            }
            if let next = selfFollowedRedirect(from: completed.response, for: current) {
                completed.removeTemporaryFile()
                redirects += 1
                guard redirects <= configuration.maximumRedirects else {
                    throw NetworkError.transport(RedirectFailure.tooManyRedirects(configuration.maximumRedirects))
                }
                current = next
                continue
            }
            return try completed.makeResponse(for: current, destination: request.downloadDestination)
        }
    }

    // MARK: - One transmission

    private func transmit(
        _ urlRequest: URLRequest,
        request: TransportRequest,
        watchdogTimeout: TimeInterval?
    ) async throws -> CompletedTask {
        if request.progress == nil, request.downloadDestination == nil, request.uploadFile == nil, watchdogTimeout == nil {
            return try await transmitInMemory(urlRequest)
        }
        let task: URLSessionTask
        if let file = request.uploadFile {
            task = session.uploadTask(with: urlRequest, fromFile: file)
        } else if let body = urlRequest.httpBody {
            var withoutBody = urlRequest
            withoutBody.httpBody = nil
            task = session.uploadTask(with: withoutBody, from: body)
        } else {
            task = session.dataTask(with: urlRequest)
        }
        let box = TaskBox(
            progress: request.progress,
            downloadsToFile: request.downloadDestination != nil,
            originalURL: urlRequest.url
        )
        delegate.register(box, for: task)
        let watchdog = watchdogTimeout.map { timeout in
            Task { await box.watch(idleTimeout: timeout) { task.cancel() } }
        }
        defer { watchdog?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if box.attach(continuation) {
                    task.resume()
                } else {
                    delegate.unregister(task)
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            box.markCancelled()
            task.cancel()
        }
    }

    /// A request with nothing to observe (no progress, no file either way, no
    /// fractional time-out), through `URLSession`'s async calls: they hand the
    /// whole body over once instead of one delegate-queue hop per event, which
    /// is most of the transport's cost on small responses. Redirect callbacks
    /// still reach the session delegate, so 307/308 and credential stripping
    /// follow the same rules as the delegate path.
    private func transmitInMemory(_ urlRequest: URLRequest) async throws -> CompletedTask {
        let (data, response): (Data, URLResponse)
        if let body = urlRequest.httpBody {
            var withoutBody = urlRequest
            withoutBody.httpBody = nil
            (data, response) = try await session.upload(for: withoutBody, from: body)
        } else {
            (data, response) = try await session.data(for: urlRequest)
        }
        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return CompletedTask(response: response, body: data, temporaryFile: nil, receivedBytes: Int64(data.count))
    }

    /// The next request for a 307 or 308, which `URLSession` is not allowed to
    /// follow (it would drop the body on Linux): same method, same body, and no
    /// credentials if the origin changes.
    private func selfFollowedRedirect(from response: HTTPURLResponse, for request: URLRequest) -> URLRequest? {
        guard configuration.followsRedirects, response.statusCode == 307 || response.statusCode == 308,
              let location = response.value(forHTTPHeaderField: "Location"),
              let url = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = url
        if !Origin.same(request.url, url) {
            Origin.stripCredentials(from: &next)
        }
        return next
    }
}

/// Why a redirect could not be followed.
public enum RedirectFailure: Error, Sendable, CustomStringConvertible {
    case tooManyRedirects(Int)

    public var description: String {
        switch self {
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects; the server may be redirecting in a loop"
        }
    }
}

// MARK: - Origins and credentials

/// Same-origin checks and credential stripping, shared (package access) by
/// every transport of this package so their redirect rules cannot drift apart.
package enum Origin {
    /// Header fields that carry credentials and never follow a request to
    /// another origin.
    package static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    package static func same(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    package static func stripCredentials(from request: inout URLRequest) {
        for name in credentialHeaders {
            request.setValue(nil, forHTTPHeaderField: name)
        }
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
