import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Tracing

#if !Tracing
#error("CourierTracing needs the package trait \"Tracing\": add it to the traits of your Courier dependency.")
#endif

/// One client span per call, with swift-distributed-tracing, the tracing API
/// of server-side Swift: whatever tracer is bootstrapped there (OpenTelemetry,
/// Zipkin, X-Ray) receives the spans, and the service receives the trace
/// context in the request's headers.
///
/// The span starts when the call reaches this plugin's `intercept` and ends
/// when the response (or the failure) comes back through it. It carries the
/// OpenTelemetry HTTP client attributes:
///
/// | Attribute | Value |
/// |---|---|
/// | `http.request.method` | `GET`, …; `_OTHER` (and `http.request.method_original`) for another method |
/// | `url.full` | the URL, with named query parameters and any password replaced by `<redacted>` |
/// | `server.address`, `server.port` | the host and port the call went to |
/// | `http.response.status_code` | the final status, when a response came |
/// | `http.request.resend_count` | retries and redirects, when there were any |
/// | `error.type` | the status code for 4xx and 5xx, else the `NetworkError` case (`NetworkError/caseName`) |
/// | `courier.operation_id` | the call's operation ID, when it has one |
///
/// Its status is an error, with the `NetworkError`'s description as message,
/// when the call failed or the status is 400 or more. Every event recorded on
/// the call's `RequestContext` becomes a span event at the time it happened:
/// each redirect (`courier.redirect`, with its redacted `location`), each
/// retry (`courier.retry`), a token refresh and a cache hit.
///
/// The trace context is injected into the request's headers through the
/// tracer (the instrument decides the header: `traceparent` and `tracestate`
/// for W3C trace context), so put this plugin first: every transmission,
/// replay and retry then carries the same span's context, and a cache in a
/// later plugin never stores the header.
///
/// ```swift
/// InstrumentationSystem.bootstrap(otelTracer)   // once, at start-up
/// let provider = Provider<API>(plugins: [TracingPlugin(), .auth(store, refresh: renew), RetryPlugin()])
/// ```
public struct TracingPlugin: Plugin {
    private let tracer: (any Tracer)?
    private let redactor: URLRedactor

    /// The query parameters whose values `url.full` hides unless told
    /// otherwise: passwords, tokens, OAuth codes and secrets, API keys (the
    /// same names the logging plugin hides).
    public static let defaultRedactedQueryParameters: Set<String> = URLRedactor.defaultSecretNames

    /// Creates the plugin.
    /// - Parameters:
    ///   - tracer: The tracer that starts the spans and injects their context;
    ///     `nil` (the default) uses the one `InstrumentationSystem.bootstrap`
    ///     installed. Pass one to keep a provider's spans apart (and in tests).
    ///   - redactedQueryParameters: Query parameters whose values `url.full`
    ///     shows as `<redacted>`. Case-insensitive; nested names
    ///     (`user[password]`) match on their parts.
    public init(tracer: (any Tracer)? = nil, redactedQueryParameters: Set<String> = defaultRedactedQueryParameters) {
        self.tracer = tracer
        self.redactor = URLRedactor(names: redactedQueryParameters)
    }

    /// Starts the call's span, injects its context into the request, sends
    /// it, and ends the span with the outcome; for a streamed call, when the
    /// stream ends, with `courier.stream.bytes` and `courier.stream.elements`
    /// (and `courier.stream.cancelled` when the reader stopped early).
    /// - Throws: Whatever `next` throws, unchanged.
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let method = request.httpMethod?.uppercased() ?? "GET"
        let span = tracer.startSpan(context.operationID ?? Self.standardMethod(method) ?? "HTTP", ofKind: .client)
        describe(request, method: method, context: context, on: span)

        var request = request
        tracer.inject(span.context, into: &request, using: HeaderInjector())
        do {
            let response = try await next(request)
            guard context.isStreamed else {
                finish(span, context: context, statusCode: response.statusCode, error: nil)
                return response
            }
            // The span covers the body too: it ends when the stream does.
            context.onStreamEnd { [self] summary in
                span.attributes["courier.stream.bytes"] = summary.bytes
                span.attributes["courier.stream.elements"] = Int64(summary.elements)
                switch summary.outcome {
                case .finished:
                    finish(span, context: context, statusCode: response.statusCode, error: nil)
                case .cancelled:
                    span.attributes["courier.stream.cancelled"] = true
                    finish(span, context: context, statusCode: response.statusCode, error: .cancelled)
                case .failed(let error):
                    finish(span, context: context, statusCode: response.statusCode, error: error)
                }
            }
            return response
        } catch {
            let failure = NetworkError(pluginError: error, plugin: self)
            finish(span, context: context, statusCode: failure.response?.statusCode, error: failure)
            throw error
        }
    }

    // MARK: - Attributes

    private func describe(_ request: URLRequest, method: String, context: RequestContext, on span: any Span) {
        var attributes = span.attributes
        if Self.standardMethod(method) != nil {
            attributes["http.request.method"] = method
        } else {
            attributes["http.request.method"] = "_OTHER"
            attributes["http.request.method_original"] = method
        }
        if let url = request.url {
            attributes["url.full"] = redactor.url(url)
            if let host = url.host { attributes["server.address"] = host }
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            attributes["server.port"] = Int64(port)
        }
        if let operation = context.operationID { attributes["courier.operation_id"] = operation }
        span.attributes = attributes
    }

    private func finish(_ span: any Span, context: RequestContext, statusCode: Int?, error: NetworkError?) {
        let events = context.events
        var attributes = span.attributes
        if let statusCode { attributes["http.response.status_code"] = Int64(statusCode) }
        let resends = events.filter { $0.name == .retry || $0.name == .redirect }.count
        if resends > 0 { attributes["http.request.resend_count"] = Int64(resends) }
        if let statusCode, statusCode >= 400, error?.isCancelled != true {
            attributes["error.type"] = String(statusCode)
        } else if let error {
            attributes["error.type"] = error.caseName
        }
        span.attributes = attributes

        for event in events {
            var eventAttributes = SpanAttributes()
            for (name, value) in event.attributes {
                eventAttributes[name] = name == "location" ? redacted(value) : value
            }
            span.addEvent(SpanEvent(name: event.name.rawValue, at: EventInstant(event.at), attributes: eventAttributes))
        }
        if let error {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.description))
        } else if let statusCode, statusCode >= 400 {
            span.setStatus(SpanStatus(code: .error, message: "HTTP \(statusCode)"))
        }
        span.end()
    }

    private func redacted(_ location: String) -> String {
        URL(string: location).map(redactor.url) ?? "<url>"
    }

    /// The method, when it is one of the standard ones.
    static func standardMethod(_ method: String) -> String? {
        standardMethods.contains(method) ? method : nil
    }

    private static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY",
    ]
}

/// Writes trace context into a request's header fields.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}

/// A `Date` as the instant a tracer expects.
struct EventInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        let nanoseconds = date.timeIntervalSince1970 * 1_000_000_000
        nanosecondsSinceEpoch = nanoseconds <= 0 ? 0 : UInt64(min(nanoseconds, Double(UInt64.max / 2)))
    }

    static func < (lhs: EventInstant, rhs: EventInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }
}
