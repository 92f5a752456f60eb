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
        /// How many times the transfer stage told this transport to stop.
        let aborts = Locked(0)

        init() {
            (body, writer) = ResponseBody.makeStream()
        }

        func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
            request.control.onAbort { [aborts] in aborts.withLock { $0 += 1 } }
            return TransportResponse(statusCode: 200, url: request.url, headerFields: [:], body: body)
        }

        /// Whether a read waits on the body for the next chunk.
        var readerIsWaiting: Bool {
            guard case .stream(let stream) = body.storage else { return false }
            return stream.readerIsWaiting
        }
    }

    /// While the first iterator waits for a chunk, a second one's read is
    /// refused at once; the first then reads the whole body, and a third
    /// iterator after it gets the end. Two reads waiting on the transport's
    /// stream together left the first waiting for good.
    @Test func aSecondIteratorReadingAtOnceIsRefusedAndTheFirstReadsOn() async throws {
        let transport = HeldBodyTransport()
        let provider = Provider<TestTarget>(transport: transport)
        let response = try await provider.stream(TestTarget(URL(string: "http://127.0.0.1:9/")!, path: ""))
        let first = Task { try await response.collect(upTo: 1 << 10) }
        try await waitUntil("the first iterator waits for a chunk", within: 60) { transport.readerIsWaiting }
        let second = try await withDeadline(60, "the second iterator's read") { () async -> NetworkError? in
            do throws(NetworkError) {
                _ = try await response.collect(upTo: 1 << 10)
                return nil
            } catch {
                return error
            }
        }
        guard case .transport(let refusal)? = second else {
            Issue.record("expected the second iterator refused, got \(String(describing: second))")
            return
        }
        #expect(String(describing: refusal).contains("another reader"))
        transport.writer.yield(Data("hello".utf8))
        transport.writer.finish()
        let whole = try await withDeadline(60, "the first iterator's read") { try await first.value }
        #expect(whole == Data("hello".utf8))
        #expect(try await response.collect(upTo: 1 << 10).isEmpty, "once the owner is done, another iterator gets the end")
    }

    /// A body read to its end leaves its transport alone when the iterator
    /// goes: there is nothing left to stop (stopping cancelled the finished
    /// request of AsyncHTTPClient, a hop onto its event loop for every call).
    /// One dropped before the end stops the transfer.
    @Test func anIteratorDroppedAfterTheEndStopsNothingAndOneBeforeItStopsTheTransfer() async throws {
        let whole = HeldBodyTransport()
        let response = try await Provider<TestTarget>(transport: whole).stream(TestTarget(URL(string: "http://127.0.0.1:9/")!, path: ""))
        whole.writer.yield(Data("hello".utf8))
        whole.writer.finish()
        #expect(try await response.collect(upTo: 1 << 10) == Data("hello".utf8))
        #expect(whole.aborts.current == 0)

        let cut = HeldBodyTransport()
        let unfinished = try await Provider<TestTarget>(transport: cut).stream(TestTarget(URL(string: "http://127.0.0.1:9/")!, path: ""))
        cut.writer.yield(Data("hel".utf8))
        do {
            var iterator = unfinished.body.makeAsyncIterator()
            #expect(try await iterator.next() == Data("hel".utf8))
        }
        #expect(cut.aborts.current == 1, "the iterator went before the end")
    }
}
