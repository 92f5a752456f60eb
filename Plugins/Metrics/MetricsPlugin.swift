import CoreMetrics
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if !Metrics
#error("CourierMetrics needs the package trait \"Metrics\": add it to the traits of your Courier dependency.")
#endif

/// Counts and times every call with swift-metrics, the metrics API of
/// server-side Swift, so any backend bootstrapped there (Prometheus,
/// StatsD, OpenTelemetry) receives them.
///
/// Every series has bounded dimensions, never a path or a query:
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `courier.requests` | counter | `method`, `host`, `status_class` |
/// | `courier.request.duration` | timer (nanoseconds) | `method`, `host`, `status_class` |
/// | `courier.errors` | counter | `method`, `host`, `error_type` |
/// | `courier.retries` | counter | `method`, `host` |
/// | `courier.redirects` | counter | `method`, `host` |
/// | `courier.token_refreshes` | counter | `host` |
/// | `courier.cache_hits` | counter | `method`, `host`, `cache_status` |
///
/// `method` is the request's method (`_OTHER` for a method outside the
/// standard ones), `host` the target's base URL's host, `status_class`
/// `2xx`…`5xx` or `error` when no response came, `error_type` the
/// `NetworkError` case (`NetworkError/caseName`). When the call names an
/// operation (`RequestOptions.operationID`, set by CourierOpenAPI for every
/// generated operation), every series also has an `operation` dimension.
/// Retries, redirects, refreshes and cache hits are counted where the
/// plugins that cause them run (CourierRetry, the transfer stage,
/// CourierAuth, CourierCache): they record events on the call's
/// `RequestContext`, which this plugin reads when the call ends.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // once, at start-up
/// let provider = Provider<API>(plugins: [MetricsPlugin(), .auth(store, refresh: renew), RetryPlugin()])
/// ```
///
/// Put it first in the plugins array, so that it sees the call whole.
public struct MetricsPlugin: Plugin {
    /// The first part of every metric's label, `courier` unless set.
    public let prefix: String
    private let factory: (any MetricsFactory)?

    /// Creates the plugin.
    /// - Parameters:
    ///   - prefix: The first part of every metric's label: `courier` gives
    ///     `courier.requests`.
    ///   - factory: Where the metrics go; `nil` (the default) uses the factory
    ///     `MetricsSystem.bootstrap` installed. Pass one to keep a provider's
    ///     metrics apart (and in tests).
    public init(prefix: String = "courier", factory: (any MetricsFactory)? = nil) {
        self.prefix = prefix
        self.factory = factory
    }

    /// Records the call: its count and duration, its error if it failed, and
    /// the retries, redirects, refreshes and cache hits it went through. A
    /// streamed call is recorded when its body ends, with a `stream_outcome`
    /// dimension (`finished`, `failed`, `cancelled`) and its bytes in
    /// `<prefix>.stream.bytes`.
    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        guard context.isStreamed, case .success = result else {
            record(result, context: context)
            return
        }
        // A streamed call counts when its body ends: its duration covers the
        // reading, and it carries how the stream ended and its bytes.
        context.onStreamEnd { [self] summary in
            switch summary.outcome {
            case .finished: record(result, context: context, stream: ("finished", summary.bytes))
            case .cancelled: record(result, context: context, stream: ("cancelled", summary.bytes))
            case .failed(let error): record(.failure(error), context: context, stream: ("failed", summary.bytes))
            }
        }
    }

    /// Records one call; `stream` is how a streamed body ended and its bytes.
    private func record(_ result: Result<Response, NetworkError>, context: RequestContext,
                        stream: (outcome: String, bytes: Int64)? = nil) {
        let factory = self.factory ?? MetricsSystem.factory
        let method = Self.method(context.target.method.rawValue)
        var common = [("method", method), ("host", context.target.baseURL.host ?? "none")]
        if let operation = context.operationID { common.append(("operation", operation)) }

        let statusClass: String
        switch result {
        case .success(let response):
            statusClass = Self.statusClass(response.statusCode)
        case .failure(let error):
            if let response = error.response {
                statusClass = Self.statusClass(response.statusCode)
            } else {
                statusClass = "error"
            }
            Counter(label: "\(prefix).errors", dimensions: common + [("error_type", error.caseName)], factory: factory)
                .increment()
        }
        var outcome = common + [("status_class", statusClass)]
        if let stream {
            outcome.append(("stream_outcome", stream.outcome))
            Recorder(label: "\(prefix).stream.bytes", dimensions: common, factory: factory).record(stream.bytes)
        }
        Counter(label: "\(prefix).requests", dimensions: outcome, factory: factory).increment()
        // On a monotonic clock: the wall clock may be set during the call.
        let elapsed = context.elapsed.components
        let nanoseconds = elapsed.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        Timer(label: "\(prefix).request.duration", dimensions: outcome, factory: factory)
            .recordNanoseconds(nanoseconds.overflow ? Int64.max : nanoseconds.partialValue + elapsed.attoseconds / 1_000_000_000)

        for event in context.events {
            switch event.name {
            case .retry:
                Counter(label: "\(prefix).retries", dimensions: common, factory: factory).increment()
            case .redirect:
                Counter(label: "\(prefix).redirects", dimensions: common, factory: factory).increment()
            case Self.tokenRefresh:
                Counter(label: "\(prefix).token_refreshes", dimensions: common.filter { $0.0 != "method" }, factory: factory)
                    .increment()
            case Self.cacheHit:
                let status = event.attributes["status"] ?? "hit"
                Counter(label: "\(prefix).cache_hits", dimensions: common + [("cache_status", status)], factory: factory)
                    .increment()
            default:
                break
            }
        }
    }

    /// The events CourierAuth and CourierCache record, by their names (this
    /// product depends on neither).
    private static let tokenRefresh: RequestContext.Event.Name = "courier.token_refresh"
    private static let cacheHit: RequestContext.Event.Name = "courier.cache_hit"

    /// `2xx` for 200…299, and so on; `error` outside 100…599.
    static func statusClass(_ statusCode: Int) -> String {
        (100..<600).contains(statusCode) ? "\(statusCode / 100)xx" : "error"
    }

    /// The method if it is a standard one, `_OTHER` if not: a dimension must
    /// not take any value a caller can make up.
    static func method(_ method: String) -> String {
        let upper = method.uppercased()
        return standardMethods.contains(upper) ? upper : "_OTHER"
    }

    private static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY",
    ]
}
