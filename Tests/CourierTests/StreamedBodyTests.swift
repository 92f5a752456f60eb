@testable import Courier
import CourierTestSupport
import Foundation
import Testing

/// A streamed call's body read the wrong way: two iterators of one body at
/// once.
@Suite struct StreamedBodyTests {
    /// Answers with a streamed body whose writer the test holds.
    final class HeldBodyTransport: Transport {
        let body: ResponseBody
        let writer: ResponseBodyWriter

        init() {
            (body, writer) = ResponseBody.makeStream()
        }

        func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
            TransportResponse(statusCode: 200, url: request.url, headerFields: [:], body: body)
        }

        /// Whether a read waits on the body for the next chunk.
        var readerIsWaiting: Bool {
            guard case .stream(let stream) = body.storage else { return false }
            return stream.readerIsWaiting
        }
    }

    /// While the first iterator waits for a chunk, a second one's read gets
    /// nothing at once; the first then reads the whole body. Two reads
    /// waiting on the transport's stream together left the first waiting for
    /// good.
    @Test func aSecondIteratorReadingAtOnceGetsNothingAndTheFirstReadsOn() async throws {
        let transport = HeldBodyTransport()
        let provider = Provider<TestTarget>(transport: transport)
        let response = try await provider.stream(TestTarget(URL(string: "http://127.0.0.1:9/")!, path: ""))
        let first = Task { try await response.collect(upTo: 1 << 10) }
        try await waitUntil("the first iterator waits for a chunk", within: 60) { transport.readerIsWaiting }
        let second = try await withDeadline(60, "the second iterator's read") { try await response.collect(upTo: 1 << 10) }
        #expect(second.isEmpty, "the body belongs to the iterator already reading it")
        transport.writer.yield(Data("hello".utf8))
        transport.writer.finish()
        let whole = try await withDeadline(60, "the first iterator's read") { try await first.value }
        #expect(whole == Data("hello".utf8))
    }
}
