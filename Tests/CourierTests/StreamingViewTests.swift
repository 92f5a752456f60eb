import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A transport that answers every request with a body in the chunks it was
/// given, so a test chooses where chunk boundaries fall.
struct ChunkedTransport: Transport {
    let status: Int
    let headers: [String: String]
    let chunks: [Data]
    /// How the body ends after its chunks: cleanly, or with this failure.
    let failure: (any Error & Sendable)?

    init(status: Int = 200, headers: [String: String] = [:], chunks: [Data], failure: (any Error & Sendable)? = nil) {
        self.status = status
        self.headers = headers
        self.chunks = chunks
        self.failure = failure
    }

    init(_ text: String, splitAt offsets: [Int], headers: [String: String] = [:]) {
        let bytes = Array(text.utf8)
        var pieces: [Data] = []
        var start = 0
        for offset in offsets.sorted() + [bytes.count] where offset >= start {
            pieces.append(Data(bytes[start..<offset]))
            start = offset
        }
        self.init(headers: headers, chunks: pieces)
    }

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        let (body, writer) = ResponseBody.makeStream()
        for chunk in chunks { writer.yield(chunk) }
        if let failure { writer.fail(failure) } else { writer.finish() }
        return TransportResponse(statusCode: status, url: request.url, headerFields: headers, body: body)
    }
}

/// Wraps a transport and keeps the last request it was asked to send, as
/// the bytes leave: what a server receives.
final class SentRequestRecorder<Inner: Transport>: Transport {
    private let inner: Inner
    private let sent = Mutex<TransportRequest?>(nil)

    init(_ inner: Inner) { self.inner = inner }

    var last: URLRequest? { sent.withLock { $0?.urlRequest } }

    /// The `Accept-Encoding` the last request went out with: its own, or
    /// the one the transfer asked the transport to add.
    var lastAcceptEncoding: String? {
        sent.withLock { request in
            request.map { $0.urlRequest.value(forHTTPHeaderField: "Accept-Encoding") ?? $0.acceptEncoding }
        }
    }

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        sent.withLock { $0 = request }
        return try await inner.send(request)
    }
}

private let base = URL(string: "http://stream.test")!  // A literal URL.

private func provider(_ transport: some Transport, plugins: [any Plugin] = []) -> Provider<TestTarget> {
    Provider<TestTarget>(transport: transport, plugins: plugins)
}

private func events(_ transport: some Transport) async throws -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for try await event in try await provider(transport).stream(TestTarget(base)).serverSentEvents {
        events.append(event)
    }
    return events
}

@Suite struct ServerSentEventParsingTests {
    static let sample = "\u{FEFF}: a comment\r\nevent: greeting\ndata: hello\r\ndata:  world\rid: 7\nretry: 2500\n\n"
        + "data\n\ndata: second\nid\n\nevent: partial\ndata: never dispatched"

    static let expected = [
        ServerSentEvent(event: "greeting", data: "hello\n world", id: "7", retry: 2500),
        ServerSentEvent(event: "message", data: "", id: "7"),
        ServerSentEvent(event: "message", data: "second", id: ""),
    ]

    @Test func theSpecificationsFieldsLineEndingsAndEndAreFollowed() async throws {
        #expect(try await events(ChunkedTransport(Self.sample, splitAt: [])) == Self.expected)
    }

    /// Every place a chunk boundary can fall, CRLF and the BOM included,
    /// gives the same events.
    @Test func everySplitPointGivesTheSameEvents() async throws {
        let count = Self.sample.utf8.count
        for offset in 0...count {
            let parsed = try await events(ChunkedTransport(Self.sample, splitAt: [offset]))
            #expect(parsed == Self.expected, "split at \(offset)")
        }
        let bytewise = try await events(ChunkedTransport(Self.sample, splitAt: Array(0...count)))
        #expect(bytewise == Self.expected)
    }

    @Test func anIDWithNULIsIgnoredAndRetryNeedsDigits() async throws {
        let text = "id: 1\ndata: a\n\nid: 2\u{0}x\nretry: 12a\ndata: b\n\n"
        let parsed = try await events(ChunkedTransport(text, splitAt: []))
        #expect(parsed == [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")])
    }

    @Test func eventDataDecodesAsJSON() async throws {
        struct Delta: Decodable, Equatable { let text: String }
        let parsed = try await events(ChunkedTransport("data: {\"text\":\"Hel\"}\n\ndata: {\"text\":\"lo\"}\n\n", splitAt: [9, 20]))
        #expect(try parsed.map { try $0.decode(Delta.self) } == [Delta(text: "Hel"), Delta(text: "lo")])
    }

    @Test func anEventOverItsLimitEndsTheStream() async throws {
        let text = "data: " + String(repeating: "x", count: 2_000) + "\n\n"
        let response = try await provider(ChunkedTransport(text, splitAt: [100, 1_000])).stream(TestTarget(base))
        await #expect(throws: NetworkError.self) {
            for try await _ in response.serverSentEvents(maximumEventSize: 1_024) {}
        }
        do {
            for try await _ in try await provider(ChunkedTransport(text, splitAt: [])).stream(TestTarget(base))
                .serverSentEvents(maximumEventSize: 1_024) {}
        } catch {
            guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
            #expect(limit == ResponseTooLarge(limit: .element, bytes: 1_024))
        }
    }
}

@Suite struct LineAndJSONViewTests {
    @Test func linesEndAtLFCRLFAndCREvenAcrossChunks() async throws {
        let text = "one\r\ntwo\nthree\rfour\r\n\r\nlast"
        for offset in 0...text.utf8.count {
            var lines: [String] = []
            for try await line in try await provider(ChunkedTransport(text, splitAt: [offset])).stream(TestTarget(base)).lines {
                lines.append(line)
            }
            #expect(lines == ["one", "two", "three", "four", "", "last"], "split at \(offset)")
        }
    }

    @Test func aLineWithoutEndPastItsLimitFails() async throws {
        let response = try await provider(ChunkedTransport(String(repeating: "y", count: 5_000), splitAt: [1_000, 2_000]))
            .stream(TestTarget(base))
        do {
            for try await _ in response.lines(maximumLength: 4_096) {}
            Issue.record("expected the line to be refused")
        } catch {
            guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
            #expect(limit.limit == .element)
        }
    }

    /// Found by the EventStream fuzz harness: the lines a chunk ended before
    /// an over-long one were dropped with it, so where chunks split changed
    /// what the reader got.
    @Test func linesBeforeAnOverLongLineAreDeliveredWhereverChunksSplit() async throws {
        let text = "a\nb\n" + String(repeating: "z", count: 100)
        for offsets in [[], [2], [4]] {
            var lines: [String] = []
            do {
                for try await line in try await provider(ChunkedTransport(text, splitAt: offsets)).stream(TestTarget(base))
                    .lines(maximumLength: 64) {
                    lines.append(line)
                }
                Issue.record("expected the long line to be refused")
            } catch {
                guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
                #expect(limit.limit == .element)
            }
            #expect(lines == ["a", "b"], "split at \(offsets)")
        }
    }

    struct Row: Decodable, Equatable, Sendable {
        let id: Int
    }

    @Test func jsonLinesDecodeAcrossChunksAndSkipBlankLines() async throws {
        let text = "{\"id\":1}\n\n{\"id\":2}\r\n  {\"id\":3}  \n{\"id\":4}"
        for offset in 0...text.utf8.count {
            var rows: [Row] = []
            for try await row in try await provider(ChunkedTransport(text, splitAt: [offset])).stream(TestTarget(base))
                .jsonLines(of: Row.self) {
                rows.append(row)
            }
            #expect(rows == [Row(id: 1), Row(id: 2), Row(id: 3), Row(id: 4)], "split at \(offset)")
        }
    }

    @Test func aMalformedJSONLineFailsNamingItsIndex() async throws {
        let text = "{\"id\":1}\n\n{\"id\":2}\n{\"id\":\n{\"id\":4}\n"
        var rows: [Row] = []
        do {
            for try await row in try await provider(ChunkedTransport(text, splitAt: [5])).stream(TestTarget(base))
                .jsonLines(of: Row.self) {
                rows.append(row)
            }
            Issue.record("expected the third line to fail")
        } catch {
            guard case .mappingFailed(let response, let failure as StreamElementFailure) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(failure.index == 2)
            #expect(response.statusCode == 200)
            #expect("\(error)".contains("element 2"))
        }
        #expect(rows == [Row(id: 1), Row(id: 2)])
    }

    @Test func jsonTextSequencesSplitAtRecordSeparators() async throws {
        let text = "\u{1E}{\"id\":1}\n\u{1E}{\"id\":2}\n\u{1E}\n"
        var rows: [Row] = []
        for try await row in try await provider(ChunkedTransport(text, splitAt: [3, 11])).stream(TestTarget(base))
            .jsonTextSequence(of: Row.self) {
            rows.append(row)
        }
        #expect(rows == [Row(id: 1), Row(id: 2)])
    }

    @Test func aJSONTextSequenceCutShortFails() async throws {
        let text = "\u{1E}{\"id\":1}\n\u{1E}{\"id\":2}"
        do {
            for try await _ in try await provider(ChunkedTransport(text, splitAt: [])).stream(TestTarget(base))
                .jsonTextSequence(of: Row.self) {}
            Issue.record("expected the cut text to fail")
        } catch {
            guard case .mappingFailed(_, let failure as StreamElementFailure) = error else { Issue.record("got \(error)"); return }
            #expect(failure.index == 1)
        }
    }
}

@Suite struct StreamedCallTests {
    @Test func theStreamsByteLimitEndsItWithResponseTooLarge() async throws {
        let chunks = Array(repeating: Data(count: 1_000), count: 10)
        let response = try await provider(ChunkedTransport(chunks: chunks)).stream(TestTarget(base), streamOptions: .init(maximumBytes: 4_500))
        var received = 0
        do {
            for try await chunk in response.body { received += chunk.count }
            Issue.record("expected the limit")
        } catch {
            guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
            #expect(limit == ResponseTooLarge(limit: .stream, bytes: 4_500))
        }
        #expect(received == 4_000)
    }

    @Test func aBodyShorterThanItsContentLengthIsALostConnection() async throws {
        let transport = ChunkedTransport(headers: ["Content-Length": "100"], chunks: [Data(count: 40)])
        let response = try await provider(transport).stream(TestTarget(base))
        do {
            for try await _ in response.body {}
            Issue.record("expected the short body to fail")
        } catch {
            guard case .connectionLost(let failure as IncompleteBody) = error else { Issue.record("got \(error)"); return }
            #expect(failure.expected == 100)
            #expect(failure.received == 40)
        }
    }

    @Test func theBodyIsReadOnce() async throws {
        let response = try await provider(ChunkedTransport(chunks: [Data("ab".utf8), Data("c".utf8)])).stream(TestTarget(base))
        #expect(try await response.collect(upTo: 10) == Data("abc".utf8))
        #expect(try await response.collect(upTo: 10).isEmpty)
    }

    @Test func aStubbedTargetStreamsItsSampleData() async throws {
        let stubbed = Provider<TestTarget>(stubClosure: Provider.immediatelyStub)
        let response = try await stubbed.stream(TestTarget(base, sampleData: Data("data: stub\n\n".utf8)))
        var events: [ServerSentEvent] = []
        for try await event in response.serverSentEvents { events.append(event) }
        #expect(events == [ServerSentEvent(data: "stub")])
    }

    @Test func aDownloadTaskCannotBeStreamed() async throws {
        let target = TestTarget(base, task: .downloadDestination { url, _ in (url, []) })
        await #expect(throws: NetworkError.self) {
            _ = try await provider(ChunkedTransport(chunks: [])).stream(target)
        }
        do {
            _ = try await provider(ChunkedTransport(chunks: [])).stream(target)
        } catch {
            guard case .requestBuildFailed(let failure as RequestBuildFailure) = error, case .streamedDownload = failure else {
                Issue.record("got \(error)")
                return
            }
        }
    }

    @Test func aFailedValidationCarriesTheErrorBody() async throws {
        let transport = ChunkedTransport(status: 422, chunks: [Data("{\"error\":".utf8), Data("\"bad\"}".utf8)])
        do {
            _ = try await provider(transport).stream(TestTarget(base, validationType: .successCodes))
            Issue.record("expected the 422 to fail validation")
        } catch {
            guard case .statusCode(let response) = error else { Issue.record("got \(error)"); return }
            #expect(response.statusCode == 422)
            #expect(response.data == Data("{\"error\":\"bad\"}".utf8))
        }
    }

    /// A JSON line or event nested deeper than the default depth is refused
    /// before any parser sees it (a recursive parser's stack is the prize);
    /// one exactly that deep decodes.
    @Test func jsonNestedDeeperThanTheDefaultDepthIsRefusedBeforeParsing() async throws {
        struct Anything: Decodable, Sendable {
            init(from decoder: any Decoder) throws {}
        }
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        let limit = JSONNesting.defaultMaximumDepth
        let deep = ChunkedTransport(nested(limit) + "\n" + nested(limit + 1) + "\n", splitAt: [])
        var decoded = 0
        do {
            for try await _ in try await provider(deep).stream(TestTarget(base)).jsonLines(of: Anything.self) {
                decoded += 1
            }
            Issue.record("the line \(limit + 1) levels deep was decoded")
        } catch {
            #expect(String(describing: error).contains("deeper than \(limit) levels"), "\(error)")
        }
        #expect(decoded == 1)

        let event = ServerSentEvent(data: nested(limit + 1))
        #expect(throws: MappingLimitExceeded.self) { try event.decode(Anything.self) }
        #expect(throws: Never.self) { try ServerSentEvent(data: nested(limit)).decode(Anything.self) }
    }

    @Test func streamedCallsAskForTheBodyAsTheServerWroteIt() async throws {
        let seen = Mutex<URLRequest?>(nil)
        let recorder = RequestRecorder { request in seen.withLock { $0 = request } }
        let transport = SentRequestRecorder(ChunkedTransport(chunks: []))
        _ = try await provider(transport, plugins: [recorder]).stream(TestTarget(base))
        #expect(transport.lastAcceptEncoding == "identity")
        #expect(transport.last?.value(forHTTPHeaderField: "Accept-Encoding") == nil, "the transport adds it to the head it writes")
        // Added where the bytes leave: the plugins see only what the target set.
        #expect(seen.withLock { $0 }?.value(forHTTPHeaderField: "Accept-Encoding") == nil)
        let own = TestTarget(base, headers: ["Accept-Encoding": "gzip"])
        _ = try await provider(transport, plugins: [recorder]).stream(own)
        #expect(transport.lastAcceptEncoding == "gzip")
        #expect(seen.withLock { $0 }?.value(forHTTPHeaderField: "Accept-Encoding") == "gzip")
    }

    // MARK: - What plugins see

    @Test func pluginsSeeAStreamedHeadAndHowTheStreamEnded() async throws {
        let summaries = Mutex<[StreamSummary]>([])
        let observer = StreamObserver { _, summary in summaries.withLock { $0.append(summary) } }
        let chunks = [Data("a\nb".utf8), Data("\nc\n".utf8)]
        let response = try await provider(ChunkedTransport(chunks: chunks), plugins: [observer]).stream(TestTarget(base))
        #expect(summaries.withLock { $0 }.isEmpty)
        var lines: [String] = []
        for try await line in response.lines { lines.append(line) }
        #expect(lines == ["a", "b", "c"])
        let summary = try #require(summaries.withLock { $0 }.first)
        #expect(summary.bytes == 6)
        #expect(summary.elements == 3)
        #expect(summary.outcome == .finished)
        #expect(summaries.withLock { $0 }.count == 1)
    }

    /// An empty chunk from the transport is no chunk for the caller, with or
    /// without decoders on the call.
    @Test func anEmptyChunkFromTheTransportIsNotHandedOn() async throws {
        let chunks = [Data(), Data("x".utf8), Data(), Data("y".utf8), Data()]
        let response = try await provider(ChunkedTransport(chunks: chunks)).stream(TestTarget(base))
        var received: [Data] = []
        for try await chunk in response.body { received.append(chunk) }
        #expect(received == [Data("x".utf8), Data("y".utf8)])
    }

    /// A last line or value without its line ending is parsed after the body's
    /// end was read: the plugins hear of the end only once the view has
    /// handled it, so it is counted, and a last value that does not decode
    /// ends the stream as failed, not finished.
    @Test func theLastElementWithoutItsLineEndingIsCountedBeforeThePluginsHearTheEnd() async throws {
        let summaries = Mutex<[StreamSummary]>([])
        let observer = StreamObserver { _, summary in summaries.withLock { $0.append(summary) } }
        let chunks = [Data("a\nb".utf8), Data("\nc".utf8)]
        var lines: [String] = []
        for try await line in try await provider(ChunkedTransport(chunks: chunks), plugins: [observer]).stream(TestTarget(base)).lines {
            lines.append(line)
        }
        #expect(lines == ["a", "b", "c"])
        #expect(summaries.withLock { $0 }.map(\.elements) == [3])

        summaries.withLock { $0 = [] }
        var rows: [LineAndJSONViewTests.Row] = []
        let json = [Data("{\"id\":1}\n{\"id\"".utf8), Data(":2}".utf8)]
        for try await row in try await provider(ChunkedTransport(chunks: json), plugins: [observer]).stream(TestTarget(base))
            .jsonLines(of: LineAndJSONViewTests.Row.self) {
            rows.append(row)
        }
        #expect(rows == [LineAndJSONViewTests.Row(id: 1), LineAndJSONViewTests.Row(id: 2)])
        #expect(summaries.withLock { $0 }.map(\.elements) == [2])
        #expect(summaries.withLock { $0 }.map(\.outcome) == [.finished])

        summaries.withLock { $0 = [] }
        let broken = [Data("{\"id\":1}\n{\"id\":".utf8)]
        await #expect(throws: NetworkError.self) {
            for try await _ in try await provider(ChunkedTransport(chunks: broken), plugins: [observer]).stream(TestTarget(base))
                .jsonLines(of: LineAndJSONViewTests.Row.self) {}
        }
        let outcomes = summaries.withLock { $0 }.map(\.outcome)
        guard outcomes.count == 1, case .failed(.mappingFailed) = outcomes[0] else {
            Issue.record("expected one summary, failed with the last value's mapping failure; got \(outcomes)")
            return
        }
    }

    @Test func aReaderThatLeavesEarlyEndsTheStreamAsCancelled() async throws {
        let summaries = Mutex<[StreamSummary]>([])
        let observer = StreamObserver { _, summary in summaries.withLock { $0.append(summary) } }
        let chunks = Array(repeating: Data("line\n".utf8), count: 10)
        let response = try await provider(ChunkedTransport(chunks: chunks), plugins: [observer]).stream(TestTarget(base))
        for try await _ in response.lines { break }
        #expect(summaries.withLock { $0 }.map(\.outcome) == [.cancelled])
    }

    @Test func aResponseDroppedUnreadEndsAsCancelled() async throws {
        let summaries = Mutex<[StreamSummary]>([])
        let observer = StreamObserver { _, summary in summaries.withLock { $0.append(summary) } }
        _ = try await provider(ChunkedTransport(chunks: [Data("x".utf8)]), plugins: [observer]).stream(TestTarget(base))
        #expect(summaries.withLock { $0 }.map(\.outcome) == [.cancelled])
    }
}

/// Calls `record` with every request as it leaves the plugins.
struct RequestRecorder: Plugin {
    let record: @Sendable (URLRequest) -> Void

    func willSend(_ request: URLRequest, context: RequestContext) async {
        record(request)
    }
}

/// Reports each streamed call's summary, with whether its context said it
/// streams.
struct StreamObserver: Plugin {
    let report: @Sendable (Bool, StreamSummary) -> Void

    func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        guard context.isStreamed, case .success(let response) = result else { return }
        #expect(response.data.isEmpty)
        context.onStreamEnd { summary in report(context.isStreamed, summary) }
    }
}
