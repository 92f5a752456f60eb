import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests for one target type through plugins and a transport, and
/// returns responses, mapped values or ``NetworkError``s.
///
/// ```swift
/// let provider = Provider<GitHub>(plugins: [LoggingPlugin()])
/// let response = try await provider.request(.user("octocat"))
/// let user = try await provider.request(.user("octocat"), mapper: MyUserMapper())
/// ```
///
/// A provider is immutable and safe to share between tasks; keep one per API.
public final class Provider<Target: TargetType>: Sendable {
    /// Makes the endpoint for a target.
    public typealias EndpointClosure = @Sendable (Target) -> Endpoint
    /// Turns an endpoint into a `URLRequest`; throw to refuse it.
    public typealias RequestClosure = @Sendable (Endpoint) async throws -> URLRequest
    /// Says whether a target is answered by its stub.
    public typealias StubClosure = @Sendable (Target) -> StubBehavior

    /// Makes the endpoint for each target: ``defaultEndpointMapping(for:)``
    /// unless the provider was given another.
    public let endpointClosure: EndpointClosure
    /// Turns each endpoint into the `URLRequest` the plugins receive:
    /// ``defaultRequestMapping(for:)`` unless given another.
    public let requestClosure: RequestClosure
    /// Says, per target, whether the network or the sample response answers:
    /// ``neverStub(_:)`` unless given another.
    public let stubClosure: StubClosure
    /// Where the completion-handler API and Combine publishers deliver
    /// results when a call names no queue; `nil` delivers them on whichever
    /// thread finished the request.
    public let callbackQueue: DispatchQueue?
    /// Moves the bytes: ``URLSessionTransport`` unless given another (such as
    /// CourierAsyncHTTPClient's `AsyncHTTPClientTransport`).
    public let transport: any Transport
    /// The plugins every call goes through, in order (see ``Plugin`` for the
    /// order their hooks run in).
    public let plugins: [any Plugin]
    /// The plugins with which hooks each leaves to its default.
    let chain: PluginChain

    /// The first of ``plugins`` that is a `P`, or `nil`: how a plugin's own
    /// extension on `Provider` finds the instance it works with.
    ///
    /// ```swift
    /// extension Provider {
    ///     public var quota: QuotaPlugin? { plugin(QuotaPlugin.self) }
    /// }
    /// ```
    public func plugin<P: Plugin>(_ type: P.Type) -> P? {
        for plugin in plugins {
            if let match = plugin as? P { return match }
        }
        return nil
    }
    /// How bytes move: redirects, time-outs, deadline and size limits, the
    /// same on every transport.
    public let transfer: TransferConfiguration
    /// Whether identical in-flight GET and HEAD requests share one transfer.
    public let coalescesRequests: Bool

    let inflight = InflightRegistry()
    /// Enforces the idle time-outs and deadlines of this provider's transfers.
    let watchdog = Watchdog()

    /// How many calls are waiting on coalesced transfers right now; for tests
    /// that need to know every caller has joined before a response arrives.
    @_spi(Testing) public var coalescedWaiterCount: Int { inflight.waiterCount }

    /// For each plugin, the hooks the provider has learned it leaves to their
    /// default and no longer calls, by name; for tests of the chain.
    @_spi(Testing) public var skippedHooks: [[String]] {
        chain.current().map { resolution in
            [("prepare", PluginChain.Hooks.prepare), ("willSend", .willSend), ("intercept", .intercept),
             ("didReceive", .didReceive), ("process", .process)]
                .filter { !resolution.calls($0.1) }.map(\.0)
        }
    }

    /// Creates a provider.
    /// - Parameters:
    ///   - endpointClosure: Makes an ``Endpoint`` from a target; by default from
    ///     the target's own members.
    ///   - requestClosure: Builds the `URLRequest` from the endpoint; may adjust
    ///     or refuse it (by throwing).
    ///   - stubClosure: Whether a target is answered by its sample response.
    ///   - callbackQueue: Where completion handlers and publishers deliver
    ///     results when a call names no queue of its own (Moya's provider-wide
    ///     `callbackQueue`); `nil` delivers them where the request finished.
    ///   - transport: What sends requests; ``URLSessionTransport/shared`` by
    ///     default.
    ///   - plugins: Middleware, in order (see ``Plugin``).
    ///   - transfer: Redirects, time-outs, deadline and size limits (see
    ///     ``TransferConfiguration``).
    ///   - coalescesRequests: When `true`, identical GET and HEAD requests in
    ///     flight at the same time (same URL with its query, header fields and
    ///     body) share one transfer; each caller still gets its own plugins,
    ///     validation and mapping. Requests that differ in any of these never
    ///     merge. Uploads, downloads and requests that report progress are
    ///     never merged.
    public init(
        endpointClosure: @escaping EndpointClosure = Provider.defaultEndpointMapping,
        requestClosure: @escaping RequestClosure = Provider.defaultRequestMapping,
        stubClosure: @escaping StubClosure = Provider.neverStub,
        callbackQueue: DispatchQueue? = nil,
        transport: any Transport = URLSessionTransport.shared,
        plugins: [any Plugin] = [],
        transfer: TransferConfiguration = TransferConfiguration(),
        coalescesRequests: Bool = false
    ) {
        self.endpointClosure = endpointClosure
        self.requestClosure = requestClosure
        self.stubClosure = stubClosure
        self.callbackQueue = callbackQueue
        self.transport = transport
        self.plugins = plugins
        self.chain = PluginChain(plugins)
        self.transfer = transfer
        self.coalescesRequests = coalescesRequests
    }

    /// The endpoint the provider builds for `target`: its endpoint closure's
    /// answer (Moya's `endpoint(_:)`).
    public func endpoint(_ target: Target) -> Endpoint {
        endpointClosure(target)
    }

    // MARK: - Requests

    /// Sends the request for `target` and returns the response.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - options: Per-call options: a progress handler, and values for
    ///     plugins (see ``RequestOptions``).
    /// - Returns: The response, after every plugin and the validation.
    /// - Throws: ``NetworkError``: the request could not be built or sent, the
    ///   status failed validation, a plugin failed, or the task was cancelled.
    public func request(
        _ target: Target,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Response {
        try await perform(target, options: options)
    }

    /// Sends the request for `target` and maps the response with `mapper`.
    ///
    /// ```swift
    /// let user = try await provider.request(.user(42), mapper: DecodableMapper<User>())
    /// ```
    /// - Returns: The mapped value.
    /// - Throws: ``NetworkError``; a mapper's failure is
    ///   ``NetworkError/mappingFailed(_:_:)`` with the response attached.
    public func request<Mapper: ResponseMapper>(
        _ target: Target,
        mapper: Mapper,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mapper.Output {
        try await perform(target, options: options).map(mapper)
    }
}

// MARK: - Default closures

extension Provider {
    /// The endpoint a target describes: base URL plus path, method, task,
    /// header fields, time-out and sample data (as a 200).
    @Sendable
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        // The URL itself goes along, so the request is built on it instead
        // of parsing its string again.
        let url = defaultURL(for: target).absoluteURL
        return Endpoint(
            url: url.absoluteString,
            madeFrom: url,
            sampleResponseClosure: { .networkResponse(200, target.sampleData) },
            method: target.method,
            task: target.task,
            httpHeaderFields: target.headers,
            timeout: target.timeout,
            deadline: target.deadline,
            maximumResponseSize: target.maximumResponseSize
        )
    }

    /// `endpoint.urlRequest()`.
    @Sendable
    public static func defaultRequestMapping(for endpoint: Endpoint) async throws -> URLRequest {
        try endpoint.urlRequest()
    }

    /// Never stubs.
    @Sendable
    public static func neverStub(_: Target) -> StubBehavior { .never }

    /// Always answers at once with the sample response.
    @Sendable
    public static func immediatelyStub(_: Target) -> StubBehavior { .immediate }

    /// Always answers with the sample response after `seconds`.
    public static func delayedStub(_ seconds: TimeInterval) -> StubClosure {
        { _ in .delayed(seconds: seconds) }
    }

    private static func defaultURL(for target: Target) -> URL {
        let path = target.path
        guard !path.isEmpty else { return target.baseURL }
        return target.baseURL.appendingPathComponentQuickly(path)
    }
}
