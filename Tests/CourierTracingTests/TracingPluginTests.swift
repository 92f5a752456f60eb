import Courier
import CourierRetry
import CourierTestSupport
import CourierTracing
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// Each test passes its own `InMemoryTracer`, so tests run side by side
/// without bootstrapping the process-wide instrument.
@Suite struct TracingPluginTests {
    func attribute(_ name: String, of span: FinishedInMemorySpan) -> SpanAttribute? {
        span.attributes[name]?.toSpanAttribute()
    }

    @Test func aCallIsOneClientSpanWithTheHTTPAttributesAndItsContextInTheHeaders() async throws {
        try await withServer { server in
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
            let target = TestTarget(server.baseURL, path: "/echo", task: .requestParameters(
                parameters: ["token": "s3cret", "page": "2"], encoding: URLEncoding.queryString))
            let response = try await provider.request(target)
            #expect(response.statusCode == 200)

            let spans = tracer.finishedSpans
            try #require(spans.count == 1)
            let span = spans[0]
            #expect(span.operationName == "GET")
            #expect(span.kind == .client)
            #expect(attribute("http.request.method", of: span) == .string("GET"))
            #expect(attribute("server.address", of: span) == .string("127.0.0.1"))
            #expect(attribute("server.port", of: span) == .int64(Int64(server.port)))
            #expect(attribute("http.response.status_code", of: span) == .int64(200))
            guard case .string(let url) = attribute("url.full", of: span) else {
                Issue.record("no url.full")
                return
            }
            #expect(url.contains("page=2"))
            #expect(url.contains("token=<redacted>"))
            #expect(!url.contains("s3cret"))
            #expect(span.status == nil)
            #expect(attribute("error.type", of: span) == nil)

            // The server received the span's context.
            let received = try #require(server.requests(to: "/echo").first)
            #expect(received.header(InMemoryTracer.traceIDKey) == span.traceID)
            #expect(received.header(InMemoryTracer.spanIDKey) == span.spanID)
        }
    }

    @Test func theSpanIsAChildOfTheCallersSpan() async throws {
        try await withServer { server in
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
            let parent = tracer.startSpan("handle request", ofKind: .server)
            try await ServiceContext.$current.withValue(parent.context) {
                _ = try await provider.request(TestTarget(server.baseURL, path: "/echo"))
            }
            parent.end()
            let client = try #require(tracer.finishedSpans.first { $0.kind == .client })
            #expect(client.parentSpanID == parent.spanID)
            #expect(client.traceID == parent.traceID)
        }
    }

    @Test func retriesAndRedirectsAreEventsOfOneSpanAndEveryTransmissionCarriesIt() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 2)
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [
                TracingPlugin(tracer: tracer),
                // A budget no loaded run uses up (the default minute was,
                // once, under the thread sanitizer): the retries are counted
                // here, not their speed.
                RetryPlugin(.init(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.001, timeBudget: 600)),
            ])
            _ = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/redirect/302", task: .requestParameters(
                parameters: ["to": "/echo?api_key=k3y&lang=en"], encoding: URLEncoding.queryString)))

            let spans = tracer.finishedSpans
            try #require(spans.count == 2)
            let flaky = spans[0]
            #expect(flaky.events.map(\.name) == ["courier.retry", "courier.retry"])
            #expect(attribute("http.request.resend_count", of: flaky) == .int64(2))
            #expect(attribute("http.response.status_code", of: flaky) == .int64(200))
            let spanIDs = Set(server.requests(to: "/flaky").compactMap { $0.header(InMemoryTracer.spanIDKey) })
            #expect(spanIDs == [flaky.spanID], "the three transmissions carry the one span's context")

            let redirected = spans[1]
            let event = try #require(redirected.events.first)
            #expect(event.name == "courier.redirect")
            guard case .string(let location) = event.attributes["location"]?.toSpanAttribute() else {
                Issue.record("no location")
                return
            }
            #expect(location.contains("lang=en") && location.contains("api_key=<redacted>") && !location.contains("k3y"))
            #expect(event.attributes["status"]?.toSpanAttribute() == .string("302"))
        }
    }

    @Test func aFailureSetsTheErrorStatusAndType() async throws {
        let tracer = InMemoryTracer()
        let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
        _ = try await withRefusingPort { url in
            await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(url, path: "/echo"))
            }
        }
        try await withServer { server in
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/500"))
        }
        let spans = tracer.finishedSpans
        try #require(spans.count == 2)
        #expect(spans[0].status?.code == .error)
        #expect(attribute("error.type", of: spans[0]) == .string("serverUnreachable"))
        #expect(spans[0].errors.count == 1)
        #expect(attribute("http.response.status_code", of: spans[0]) == nil)
        #expect(spans[1].status?.code == .error)
        #expect(attribute("error.type", of: spans[1]) == .string("500"))
    }

    @Test func theOperationNamesTheSpanAndAnUnknownMethodIsOther() async throws {
        try await withServer { server in
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo"), options: RequestOptions(operationID: "getGreeting"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: HTTPMethod(rawValue: "PURGE")))
            let spans = tracer.finishedSpans
            try #require(spans.count == 2)
            #expect(spans[0].operationName == "getGreeting")
            #expect(attribute("courier.operation_id", of: spans[0]) == .string("getGreeting"))
            #expect(spans[1].operationName == "HTTP")
            #expect(attribute("http.request.method", of: spans[1]) == .string("_OTHER"))
            #expect(attribute("http.request.method_original", of: spans[1]) == .string("PURGE"))
        }
    }
}
