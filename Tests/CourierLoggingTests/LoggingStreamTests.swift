import Courier
import CourierLogging
import CourierTestSupport
import Foundation
import Logging
import Testing

/// A streamed call is logged by its head and, once it ends, a summary with
/// its bytes and elements: never its body.
@Suite struct LoggingStreamTests {
    static func events(_ count: Int) -> String {
        (1...count).map { "data: secret-\($0)\n\n" }.joined()
    }

    @Test(arguments: [Logger.Level.info, .debug])
    func aStreamedCallLogsItsHeadAndASummaryButNeverItsBody(level: Logger.Level) async throws {
        try await withServer { server in
            server.route("/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")], body: .streamed { writer in
                    try await writer.write(Self.events(3))
                })
            }
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(.init(logger: capture.logger(level: level)))])
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/events"))
            #expect(capture.messages.contains { $0.contains("200 (head after") })
            var count = 0
            for try await _ in response.serverSentEvents { count += 1 }
            #expect(count == 3)
            let summary = try #require(capture.messages.last)
            let bytes = Self.events(3).utf8.count
            #expect(summary.contains("stream ended (\(bytes) bytes, 3 elements, "))
            #expect(capture.messages.allSatisfy { !$0.contains("secret-") })
        }
    }

    @Test func aStreamTheReaderLeavesIsLoggedAsStopped() async throws {
        try await withServer { server in
            server.route("/events") { _ in
                LoopbackResponse(body: .streamed { writer in
                    for _ in 0..<1_000 { try await writer.write(Self.events(1)) }
                })
            }
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(.init(logger: capture.logger(level: .info)))])
            for try await _ in try await provider.stream(TestTarget(server.baseURL, path: "/events")).serverSentEvents { break }
            #expect(capture.messages.last?.contains("stream stopped by the reader") == true)
        }
    }
}
