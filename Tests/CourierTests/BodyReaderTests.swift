@testable import Courier
import Foundation
import Testing

/// The one reader of a response body: what it hands out, counts and throws,
/// without a transport, for a body that came whole and one that streams.
@Suite struct BodyReaderTests {
    private static let limit = ResponseTooLarge(limit: .memory, bytes: 10)

    private static func limitPassed(_ failure: NetworkError?) -> Bool {
        guard case .responseTooLarge(let refused)? = failure else { return false }
        return refused == limit
    }

    /// Every chunk `reader` hands out until the end, or the failure that
    /// ended it.
    private static func readAll(_ reader: inout BodyReader) async -> (chunks: [Data], failure: NetworkError?) {
        var chunks: [Data] = []
        do {
            while let chunk = try await reader.next() { chunks.append(chunk) }
            return (chunks, nil)
        } catch {
            return (chunks, error)
        }
    }

    @Test func aWholeBodyIsOneChunkThenItsEnd() async throws {
        var reader = BodyReader(ResponseBody(Data("hello".utf8)), control: nil, limit: Self.limit, announced: 5)
        let (chunks, failure) = await Self.readAll(&reader)
        #expect(chunks == [Data("hello".utf8)] && failure == nil)
        #expect(reader.received == 5)
        #expect(try await reader.next() == nil, "every read after the end gets nothing")
    }

    @Test func anEmptyWholeBodyEndsAtItsFirstRead() async throws {
        var reader = BodyReader(.empty, control: nil, limit: nil, announced: nil)
        #expect(try await reader.next() == nil)
    }

    @Test func aWholeBodyShortOfItsContentLengthSaysHowMuchCame() async {
        var reader = BodyReader(ResponseBody(Data("hello".utf8)), control: nil, limit: nil, announced: 8)
        let (chunks, failure) = await Self.readAll(&reader)
        #expect(chunks.count == 1, "what came is handed out before the end says it was short")
        guard case .connectionLost(let incomplete as IncompleteBody)? = failure else {
            Issue.record("expected connectionLost(IncompleteBody), got \(String(describing: failure))")
            return
        }
        #expect(incomplete.expected == 8 && incomplete.received == 5)
    }

    @Test func aWholeBodyPastTheLimitIsRefusedWhole() async {
        var reader = BodyReader(ResponseBody(Data(count: 11)), control: nil, limit: Self.limit, announced: nil)
        let (chunks, failure) = await Self.readAll(&reader)
        #expect(chunks.isEmpty)
        #expect(Self.limitPassed(failure))
    }

    /// Past the limit, the transfer stops (its abort handlers run) before
    /// the reader hears why, and nothing past the limit is handed out.
    @Test func aStreamPastTheLimitStopsTheTransfer() async {
        let (body, writer) = ResponseBody.makeStream()
        let control = TransferControl()
        let aborted = Locked(0)
        control.onAbort { aborted.withLock { $0 += 1 } }
        var reader = BodyReader(body, control: control, limit: Self.limit, announced: nil)
        writer.yield(Data(count: 6))
        writer.yield(Data(count: 6))
        writer.finish()
        let (chunks, failure) = await Self.readAll(&reader)
        #expect(chunks.map(\.count) == [6])
        #expect(Self.limitPassed(failure))
        #expect(aborted.current == 1)
        guard case .tooLarge? = control.reason else { Issue.record("expected the limit as the reason, got \(String(describing: control.reason))"); return }
    }

    /// However the transport names a failure after the head, the reader
    /// names it by one rule (`BodyReader.brokenBody`).
    @Test func aStreamThatBreaksOffIsNamedByTheOneRule() async {
        let cases: [(announced: Int64?, failure: any Error, expected: String)] = [
            (100, URLError(.networkConnectionLost), "incomplete"),
            (nil, URLError(.unknown), "connectionLost"),
            (nil, URLError(.cannotParseResponse), "invalidResponse"),
            (100, URLError(.timedOut), "timedOut"),
        ]
        for (announced, transportFailure, expected) in cases {
            let (body, writer) = ResponseBody.makeStream()
            var reader = BodyReader(body, control: TransferControl(), limit: nil, announced: announced)
            writer.yield(Data(count: 4))
            writer.fail(transportFailure)
            let (chunks, failure) = await Self.readAll(&reader)
            #expect(chunks.map(\.count) == [4])
            let name: String = switch failure {
            case .connectionLost(let incomplete as IncompleteBody)? where incomplete.received == 4: "incomplete"
            case .connectionLost?: "connectionLost"
            case .invalidResponse?: "invalidResponse"
            case .timedOut?: "timedOut"
            default: "\(String(describing: failure))"
            }
            #expect(name == expected, "\(transportFailure) with \(String(describing: announced)) announced")
        }
    }

    /// A transfer stopped while the reader waits (the watchdog's time-out)
    /// wakes it with the transfer's reason, not the transport's.
    @Test func aTransferStoppedWhileTheReaderWaitsEndsWithItsReason() async {
        let (body, _) = ResponseBody.makeStream()
        let control = TransferControl()
        let reader = BodyReader(body, control: control, limit: nil, announced: nil)
        guard case .stream(let stream) = body.storage else { Issue.record("expected a stream"); return }
        let reading = Task { [reader] in
            var reader = reader
            return await Self.readAll(&reader).failure
        }
        while !stream.readerIsWaiting { await Task.yield() }
        control.abort(.timedOut(.idle(1)))
        let failure = await reading.value
        guard case .timedOut(let reason as TransferTimeout)? = failure, reason == .idle(1) else {
            Issue.record("expected the idle time-out, got \(String(describing: failure))")
            return
        }
    }

    /// The transfer stopped (its deadline) after the transport finished but
    /// before the reader took every chunk: the reader hears the reason, not
    /// a clean end of a body cut short.
    @Test func aTransferStoppedWithChunksUnreadEndsWithItsReasonNotAnEnd() async {
        for unreadAtTheStop in [1, 0] {
            let (body, writer) = ResponseBody.makeStream()
            let control = TransferControl()
            var reader = BodyReader(body, control: control, limit: nil, announced: nil)
            writer.yield(Data(count: 4))
            for _ in 0..<unreadAtTheStop { writer.yield(Data(count: 4)) }
            writer.finish()
            let first = try? await reader.next()
            #expect(first?.count == 4)
            control.abort(.timedOut(.deadline(1)))
            let (chunks, failure) = await Self.readAll(&reader)
            #expect(chunks.isEmpty, "\(unreadAtTheStop) unread")
            guard case .timedOut(let reason as TransferTimeout)? = failure, reason == .deadline(1) else {
                Issue.record("expected the deadline, got \(String(describing: failure)) with \(unreadAtTheStop) unread")
                continue
            }
        }
    }
}
