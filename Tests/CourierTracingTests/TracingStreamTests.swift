import Courier
import CourierTestSupport
import CourierTracing
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// A streamed call's span lasts until its body ends, and says how it ended.
@Suite struct TracingStreamTests {
    func attribute(_ name: String, of span: FinishedInMemorySpan) -> SpanAttribute? {
        span.attributes[name]?.toSpanAttribute()
    }

    @Test func theSpanEndsWithTheStreamAndCarriesItsBytes() async throws {
        try await withServer { server in
            server.route("/lines") { _ in
                LoopbackResponse(body: .streamed { writer in
                    try await writer.write("a\nb\n")
                    try await writer.write("c\n")
                })
            }
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/lines"))
            #expect(tracer.finishedSpans.isEmpty)
            var lines: [String] = []
            for try await line in response.lines { lines.append(line) }
            #expect(lines == ["a", "b", "c"])
            let span = try #require(tracer.finishedSpans.first)
            #expect(tracer.finishedSpans.count == 1)
            #expect(attribute("courier.stream.bytes", of: span) == .int64(6))
            #expect(attribute("courier.stream.elements", of: span) == .int64(3))
            #expect(attribute("http.response.status_code", of: span) == .int64(200))
            #expect(span.status == nil)
        }
    }

    @Test func anAbandonedStreamEndsItsSpanAsCancelled() async throws {
        try await withServer { server in
            server.route("/lines") { _ in .lines(1_000) }
            let tracer = InMemoryTracer()
            let provider = Provider<TestTarget>(plugins: [TracingPlugin(tracer: tracer)])
            for try await _ in try await provider.stream(TestTarget(server.baseURL, path: "/lines")).lines { break }
            let span = try #require(tracer.finishedSpans.first)
            #expect(attribute("courier.stream.cancelled", of: span) == .bool(true))
            #expect(attribute("error.type", of: span) == .string("cancelled"))
        }
    }
}
