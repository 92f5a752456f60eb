import Courier
import CourierRetry
import CourierTestSupport
import Foundation
import Testing

/// The retry plugin acts on a streamed call's head only: once the body has
/// reached the caller, a failure is the caller's to see.
@Suite struct RetryStreamTests {
    @Test func aStreamedCallIsRetriedOnA503HeadBeforeAnyByteReachesTheCaller() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 2, success: LoopbackResponse(body: .streamed { writer in
                try await writer.write("one\ntwo\n")
            }))
            let provider = Provider<TestTarget>(plugins: [RetryPluginTests.plugin(RecordingClock())])
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            var lines: [String] = []
            for try await line in response.lines { lines.append(line) }
            #expect(lines == ["one", "two"])
            #expect(server.hits("/flaky") == 3)
        }
    }

    struct CutOff: Error {}

    @Test func aBodyThatBreaksOffAfterTheHeadIsNotRetried() async throws {
        try await withServer { server in
            server.route("/cut") { _ in
                LoopbackResponse(body: .streamed { writer in
                    try await writer.write("partial\n")
                    throw CutOff()
                })
            }
            let provider = Provider<TestTarget>(plugins: [RetryPluginTests.plugin(RecordingClock())])
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/cut"))
            var lines: [String] = []
            do {
                for try await line in response.lines { lines.append(line) }
                Issue.record("expected the cut body to fail")
            } catch let error as NetworkError {
                guard case .connectionLost = error else { Issue.record("got \(error)"); return }
            }
            #expect(lines == ["partial"])
            #expect(server.hits("/cut") == 1)
        }
    }
}
