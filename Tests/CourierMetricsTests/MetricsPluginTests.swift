import CoreMetrics
import Courier
import CourierAuth
import CourierCache
import CourierMetrics
import CourierRetry
import CourierTestSupport
import Foundation
import MetricsTestKit
import Testing

/// Each test passes its own `TestMetrics` to the plugin, so tests run side by
/// side without bootstrapping the process-wide metrics system.
@Suite struct MetricsPluginTests {
    static let host = "127.0.0.1"

    @Test func everyCallIsCountedAndTimedByMethodHostAndStatusClass() async throws {
        try await withServer { server in
            let metrics = TestMetrics()
            let provider = Provider<TestTarget>(plugins: [MetricsPlugin(factory: metrics)])
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: .post))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/404"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/503"))

            let get2xx = [("method", "GET"), ("host", Self.host), ("status_class", "2xx")]
            #expect(try metrics.expectCounter("courier.requests", get2xx).totalValue == 1)
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("method", "POST")]) == 1)
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("status_class", "4xx")]) == 1)
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("status_class", "5xx")]) == 1)
            let timer = try metrics.expectTimer("courier.request.duration", get2xx)
            #expect(timer.values.count == 1)
            #expect((timer.lastValue ?? 0) > 0)
            // A response, whatever its status, is not an error.
            #expect(metrics.counters(label: "courier.errors").isEmpty)
        }
    }

    @Test func aCallWithoutAResponseIsCountedAsAnErrorOfItsKind() async throws {
        try await withRefusingPort { url in
            let metrics = TestMetrics()
            let provider = Provider<TestTarget>(plugins: [MetricsPlugin(factory: metrics)])
            await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(url, path: "/echo"))
            }
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("status_class", "error")]) == 1)
            let errors = metrics.counters(label: "courier.errors")
            #expect(errors.count == 1)
            #expect(errors.first?.dimensions.first { $0.0 == "error_type" }?.1 == "serverUnreachable")
        }
    }

    @Test func dimensionsNeverCarryAPathAQueryOrAMadeUpMethod() async throws {
        try await withServer { server in
            let metrics = TestMetrics()
            let provider = Provider<TestTarget>(plugins: [MetricsPlugin(factory: metrics)])
            for id in 1...5 {
                let target = TestTarget(server.baseURL, path: "/echo/users/\(id)",
                                        task: .requestParameters(parameters: ["token": "secret\(id)"], encoding: URLEncoding.queryString))
                _ = try await provider.request(target)
            }
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: HTTPMethod(rawValue: "PURGE-\(UUID())")))

            let series = metrics.counters(label: "courier.requests")
            #expect(series.count == 2, "five paths and queries make one series, a made-up method one more")
            let values = series.flatMap(\.dimensions).map(\.1)
            #expect(!values.contains { $0.contains("/") || $0.contains("secret") || $0.contains("PURGE") })
            #expect(values.contains("_OTHER"))
        }
    }

    @Test func theOperationIDBecomesADimension() async throws {
        try await withServer { server in
            let metrics = TestMetrics()
            let provider = Provider<TestTarget>(plugins: [MetricsPlugin(prefix: "api", factory: metrics)])
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo"), options: RequestOptions(operationID: "getGreeting"))
            #expect(metrics.counterTotal(label: "api.requests", dimensions: [("operation", "getGreeting")]) == 1)
        }
    }

    @Test func retriesRedirectsRefreshesAndCacheHitsAreCountedWhereThosePluginsRun() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 2)
            server.route("/private") { request in
                request.header("Authorization") == "Bearer fresh" ? .text("secret") : .text("who?", status: 401)
            }
            let served = Mutex(0)
            server.route("/feed") { _ in
                let count = served.withLock { count in
                    count += 1
                    return count
                }
                return .text("feed \(count)")
            }
            let metrics = TestMetrics()
            let store = InMemoryCredentialStore(Credential(accessToken: "stale", refreshToken: "r"))
            let provider = Provider<TestTarget>(plugins: [
                MetricsPlugin(factory: metrics),
                .auth(store, configuration: .init(defaultAuthorizationType: .bearer),
                      refresh: { _ in Credential(accessToken: "fresh", refreshToken: "r2") }),
                RetryPlugin(.init(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.001)),
                CachePlugin(),
            ])

            _ = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/redirect/302", task: .requestParameters(
                parameters: ["to": "/echo"], encoding: URLEncoding.queryString)))
            let secret = try await provider.request(TestTarget(server.baseURL, path: "/private"))
            #expect(secret.statusCode == 200)
            _ = try await provider.request(TestTarget(server.baseURL, path: "/feed"), cachePolicy: .cacheIfPossible)
            let cached = try await provider.request(TestTarget(server.baseURL, path: "/feed"), cachePolicy: .cacheIfPossible)
            #expect(cached.cacheStatus == .hit)

            #expect(metrics.counterTotal(label: "courier.retries") == 2)
            #expect(metrics.counterTotal(label: "courier.redirects") == 1)
            #expect(metrics.counterTotal(label: "courier.token_refreshes") == 1)
            #expect(metrics.counterTotal(label: "courier.cache_hits", dimensions: [("cache_status", "hit")]) == 1)
            #expect(metrics.counterTotal(label: "courier.requests") == 5)
        }
    }
}
