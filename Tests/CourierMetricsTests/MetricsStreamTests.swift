import CoreMetrics
import Courier
import CourierMetrics
import CourierTestSupport
import Foundation
import MetricsTestKit
import Testing

/// A streamed call is counted and timed when its body ends, with how it
/// ended and its bytes.
@Suite struct MetricsStreamTests {
    @Test func aStreamIsRecordedWhenItEndsWithItsOutcomeAndBytes() async throws {
        try await withServer { server in
            server.route("/lines") { _ in .lines(1_000) }
            let metrics = TestMetrics()
            let provider = Provider<TestTarget>(plugins: [MetricsPlugin(factory: metrics)])
            let finished = try await provider.stream(TestTarget(server.baseURL, path: "/lines"))
            #expect(metrics.counters(label: "courier.requests").isEmpty)
            var count = 0
            for try await _ in finished.lines { count += 1 }
            #expect(count == 1_000)
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("stream_outcome", "finished")]) == 1)
            let recorder = try metrics.expectRecorder("courier.stream.bytes", [("method", "GET"), ("host", "127.0.0.1")])
            #expect(recorder.lastValue == 5_000)

            for try await _ in try await provider.stream(TestTarget(server.baseURL, path: "/lines")).lines { break }
            #expect(metrics.counterTotal(label: "courier.requests", dimensions: [("stream_outcome", "cancelled")]) == 1)
            let timer = try metrics.expectTimer("courier.request.duration",
                                                [("method", "GET"), ("host", "127.0.0.1"), ("status_class", "2xx"),
                                                 ("stream_outcome", "cancelled")])
            #expect(timer.values.count == 1)
        }
    }
}
