import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Middleware for a ``Provider``: five hooks around every request, each with a
/// default that does nothing, so a plugin writes only the ones it needs.
///
/// ## The order of the hooks
/// For `provider.request(target)`, with `plugins: [a, b]`:
///
/// 1. `a.prepare`, then `b.prepare`: change the request (add a token,
///    compress the body, add conditional cache headers). Runs once per call.
/// 2. `a.intercept` wraps `b.intercept`, which wraps the transmission. A plugin
///    may answer without calling `next` (a cache hit), or call `next` more than
///    once (a replay after a token refresh, a retry).
/// 3. Each transmission — every call of the innermost `next` — runs
///    `a.willSend`, `b.willSend`, then the transfer stage (or the stub), which
///    follows redirects and applies time-outs and size limits.
/// 4. `a.didReceive`, `b.didReceive`: observe the final result. Once per call.
/// 5. `a.process`, then `b.process`: change the result (decompress, turn errors
///    into domain errors). Once per call.
///
/// Then the provider validates the status code and, if asked, maps the
/// response.
///
/// ## The recommended order of the shipped plugins
/// ```swift
/// Provider<API>(plugins: [LoggingPlugin(), .auth(store, refresh: renew), RetryPlugin(), CachePlugin(), GzipPlugin()])
/// ```
/// Logging first: it only observes, logging each transmission (a token
/// replay, a retry) from `willSend` and each call whole from `didReceive`,
/// so any place works, and first keeps its lines ahead of the others'. Auth adds the token
/// in `prepare`, before any `intercept`, so a cache's key always sees whose
/// request it is, whatever the order; before retry, a replay after a token
/// refresh is retried like any request. Retry wraps the cache, so a hit never
/// waits for a back-off. Gzip last: its `prepare` compresses the body the
/// others have finished changing, and its `process` decodes cached and fresh
/// bodies alike. CourierTracing's and CourierMetrics' plugins, when used, go
/// before all of them, so that a span and a duration cover the whole call.
///
/// ## A complete plugin
/// ```swift
/// /// Adds an `X-Request-ID` header and logs how long each call took.
/// struct RequestIDPlugin: Plugin {
///     func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
///         var request = request
///         request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///         return request
///     }
///
///     func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
///         print("\(context.target.path) took \(context.elapsed)")
///     }
/// }
///
/// let provider = Provider<GitHub>(plugins: [RequestIDPlugin()])
/// ```
///
/// ## Implementation requirements
/// - Plugins are shared by every request of a provider, concurrently: keep
///   per-request state in locals (around `next` in `intercept`), never in
///   stored properties that concurrent requests would overwrite.
/// - An error a hook throws reaches the caller as
///   ``NetworkError/plugin(_:_:)`` naming the plugin, unless it is already a
///   ``NetworkError``.
/// - A hook a plugin leaves to its default costs a call nothing: the
///   provider learns on the plugin's first call which hooks are the defaults
///   (their witnesses are fixed per type) and calls only the others from then
///   on. A hook a plugin writes is called on every call, even when it hands
///   over to another plugin's default.
/// - A plugin never sees the transport below: it works on `URLRequest` and
///   ``Response``, so it works with every ``Transport``.
public protocol Plugin: Sendable {
    /// Changes the request before it is sent. Runs once per call, in the order
    /// of the plugins array.
    /// - Throws: To refuse the request; nothing is sent.
    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest

    /// Observes each transmission right before the transport sends it: once per
    /// call, and again for every replay. ``RequestContext/attempt`` counts
    /// them.
    func willSend(_ request: URLRequest, context: RequestContext) async

    /// Wraps the transmission. Call `next` to send (and to replay); return
    /// without calling it to answer from elsewhere.
    ///
    /// The first plugin's `intercept` is the outermost.
    /// - Throws: Any error; the provider passes it on as a ``NetworkError``.
    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response

    /// Observes the result, before any plugin's `process`. Runs once per call.
    func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async

    /// Changes the result: rewrites a response, or turns a success into a
    /// failure or back. Runs once per call, in the order of the plugins array,
    /// each plugin receiving the previous one's result.
    func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError>
}

/// Sends a request onwards, through the remaining plugins' `intercept` and then
/// the transfer stage, and returns the response, whatever its status.
/// - Throws: ``NetworkError``, already classified.
public typealias PluginNext = @Sendable (URLRequest) async throws(NetworkError) -> Response

// The defaults do nothing but note, for the provider, that they ran: after a
// plugin's first call of a hook the provider knows it is the default and
// never calls it again (see PluginChain), so a hook a plugin leaves out costs
// a call nothing.
extension Plugin {
    /// Returns `request` unchanged.
    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        context.noteDefault(.prepare, of: type(of: self))
        return request
    }

    /// Does nothing.
    public func willSend(_ request: URLRequest, context: RequestContext) async {
        context.noteDefault(.willSend, of: type(of: self))
    }

    /// Sends the request on: `try await next(request)`.
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        context.noteDefault(.intercept, of: type(of: self))
        return try await next(request)
    }

    /// Does nothing.
    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        context.noteDefault(.didReceive, of: type(of: self))
    }

    /// Returns `result` unchanged.
    public func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        context.noteDefault(.process, of: type(of: self))
        return result
    }
}

extension NetworkError {
    /// Wraps an error a plugin threw: a ``NetworkError`` stays as it is, a
    /// cancellation becomes ``cancelled``, anything else ``plugin(_:_:)``.
    public init(pluginError error: any Error, plugin: any Plugin) {
        if let error = error as? NetworkError {
            self = error
        } else if error is CancellationError {
            self = .cancelled
        } else {
            self = .plugin(String(describing: type(of: plugin)), error)
        }
    }
}
