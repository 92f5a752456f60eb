@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The transitions of one response as a transport receives it, with plain
/// values for the caller and the writer: no client, no task.
@Suite struct ResponseExchangeStateMachineTests {
    typealias Machine = ResponseExchangeStateMachine<Int, String>

    private static func parts(_ answer: Machine.Answer?) -> [String]? {
        switch answer {
        case .whole(let parts)?, .partial(let parts, _)?: parts.map { String(decoding: $0, as: UTF8.self) }
        default: nil
        }
    }

    @Test func aCollectedBodyReachesTheCallerWholeAtTheEnd() {
        var machine = Machine(streamingTo: nil)
        #expect(machine.ask(1) == nil, "nothing yet")
        #expect(machine.receivedHead() == nil, "the caller waits for the body")
        guard case .collected = machine.received(part: Data("ab".utf8), keep: true),
              case .collected = machine.received(part: Data("c".utf8), keep: true) else { Issue.record("expected collected"); return }
        let (action, first) = machine.end(failure: nil)
        guard case .answer(1, let answer) = action, case .whole = answer else { Issue.record("expected the answer"); return }
        #expect(Self.parts(answer) == ["ab", "c"])
        #expect(first)
        let again = machine.end(failure: URLError(.cancelled))
        guard case .none = again.action, !again.first else { Issue.record("only the first end counts"); return }
    }

    @Test func aPartTheLimitRefusesLetsTheCollectedPartsGo() {
        var machine = Machine(streamingTo: nil)
        _ = machine.ask(1)
        _ = machine.receivedHead()
        _ = machine.received(part: Data("abc".utf8), keep: true)
        _ = machine.received(part: Data("d".utf8), keep: false)
        guard case .answer(1, let answer) = machine.end(failure: URLError(.cancelled)).action,
              case .partial(_, let failure) = answer else { Issue.record("expected the partial answer"); return }
        #expect(Self.parts(answer) == [])
        #expect((failure as? URLError)?.code == .cancelled)
    }

    /// A streamed body's parts go to its stream, which opens when the state
    /// says the head arrived and closes when the writer finishes; the state
    /// itself keeps none of them.
    @Test func aStreamedBodyAnswersAtTheHeadAndItsPartsGoToTheStream() {
        var machine = Machine(streamingTo: "writer")
        _ = machine.ask(1)
        #expect(!machine.isStreaming, "no head yet: the stream is not open")
        #expect(machine.receivedHead() == 1)
        #expect(machine.isStreaming)
        #expect(machine.receivedHead() == nil, "one head")
        #expect(machine.received(part: Data("a".utf8), keep: true) == .drop, "the stream takes the parts, not the state")
        guard case .finish("writer", nil) = machine.end(failure: nil).action else { Issue.record("expected the writer to finish"); return }
        #expect(!machine.isStreaming)
        #expect(machine.received(part: Data("late".utf8), keep: true) == .drop, "after the end: drop")
    }

    @Test func aStreamedBodyThatFailsEndsItsWriterWithTheFailure() {
        var machine = Machine(streamingTo: "writer")
        _ = machine.receivedHead()
        guard case .finish("writer", let failure?) = machine.end(failure: URLError(.networkConnectionLost)).action,
              (failure as? URLError)?.code == .networkConnectionLost else { Issue.record("expected the failure"); return }
    }

    /// A transport that refuses a head (a compressed answer nobody asked
    /// for, a refused certificate) ends the exchange with the failure: the
    /// caller is failed once, and what the client still reports reaches nobody.
    @Test func anEndBeforeTheHeadFailsTheCallerAndLaterEventsReachNobody() {
        var machine = Machine(streamingTo: "writer")
        _ = machine.ask(1)
        guard case .answer(1, .failure(let failure)) = machine.end(failure: URLError(.timedOut)).action,
              (failure as? URLError)?.code == .timedOut else { Issue.record("expected the failure"); return }
        #expect(machine.receivedHead() == nil, "a head after the end reaches nobody")
        guard case .drop = machine.received(part: Data("a".utf8), keep: true) else { Issue.record("expected drop"); return }
        guard case .none = machine.end(failure: nil).action else { Issue.record("the caller was told twice"); return }
    }

    @Test func anEndWithNeitherHeadNorFailureIsABadResponse() {
        var machine = Machine(streamingTo: nil)
        _ = machine.ask(1)
        guard case .answer(1, .failure(let failure)) = machine.end(failure: nil).action,
              (failure as? URLError)?.code == .badServerResponse else { Issue.record("expected a bad response"); return }
    }

    @Test func bytesBeforeTheHeadAreDropped() {
        var machine = Machine(streamingTo: nil)
        guard case .drop = machine.received(part: Data("a".utf8), keep: true) else { Issue.record("no head: drop"); return }
    }

    /// A client may answer before the sending task asks (AsyncHTTPClient runs
    /// the request on its event loop at once): the answer waits for it.
    @Test func anAnswerReachesACallerWhoAsksLater() {
        var streamed = Machine(streamingTo: "writer")
        #expect(streamed.receivedHead() == nil, "nobody waits yet")
        guard case .streamed? = streamed.ask(1) else { Issue.record("expected the kept answer"); return }

        var collected = Machine(streamingTo: nil)
        _ = collected.receivedHead()
        _ = collected.received(part: Data("ab".utf8), keep: true)
        guard case .none = collected.end(failure: nil).action else { Issue.record("nobody to resume yet"); return }
        let answer = collected.ask(2)
        #expect(Self.parts(answer) == ["ab"])
    }
}

/// ``ResponseExchange`` as a transport uses it: what it counts, whom it
/// answers, and that a client's `whenConsumed` always runs.
@Suite struct ResponseExchangeTests {
    private static let url = URL(string: "http://example.com/")!

    private static func response(of exchange: ResponseExchange, status: Int) async throws -> TransportResponse {
        try await exchange.response { body in TransportResponse(statusCode: status, url: url, headerFields: [:], body: body) }
    }

    private static func request(collects: Bool, limit: Int64) -> TransportRequest {
        let control = TransferControl(bodyLimit: ResponseTooLarge(limit: .memory, bytes: limit), progress: nil, readsInChunks: !collects)
        return TransportRequest(urlRequest: URLRequest(url: url), collectsBody: collects, control: control)
    }

    @Test func aCollectedBodyIsCountedAgainstItsLimitBeforeItIsKept() async throws {
        let request = Self.request(collects: true, limit: 4)
        let exchange = ResponseExchange(for: request)
        exchange.receivedHead()
        #expect(exchange.receivedBody(Data("abc".utf8)))
        #expect(!exchange.receivedBody(Data("de".utf8)), "past the limit of 4 bytes")
        #expect(request.control.isAborted, "the transfer stops at the limit")
        exchange.end(failure: URLError(.cancelled))
        let response = try await Self.response(of: exchange, status: 200)
        // The parts kept before the limit were let go: the body holds no
        // byte, then the failure.
        guard case .stream(let stream) = response.body.storage else { Issue.record("expected a partial body"); return }
        #expect(try await stream.next() == Data())
        await #expect(throws: NetworkError.self) { _ = try await stream.next() }
    }

    @Test func aStreamedPartFromAClientThatWaitsIsNotCountedAndItsCallbackRuns() async throws {
        let request = Self.request(collects: false, limit: 2)
        let exchange = ResponseExchange(for: request)
        exchange.receivedHead()
        let response = try await Self.response(of: exchange, status: 206)
        #expect(response.statusCode == 206)
        let consumed = Locked(0)
        #expect(exchange.receivedBody(Data("abcd".utf8)) { consumed.withLock { $0 += 1 } })
        #expect(!request.control.isAborted, "the reader counts a body it waits for, not the exchange")
        exchange.end()
        #expect(try await response.body.collect(upTo: 100) == Data("abcd".utf8))
        #expect(consumed.current == 1)
        // After the end a part is dropped, and its client still told to go on.
        #expect(!exchange.receivedBody(Data("late".utf8)) { consumed.withLock { $0 += 1 } })
        #expect(consumed.current == 2)
    }

    /// A streamed body's parts go straight to its stream, which opens only
    /// at the head: a part before it is refused in both of a client's forms,
    /// its client told to go on, and the body holds only what came after.
    @Test func aStreamedPartBeforeTheHeadIsRefusedAndTheBodyHoldsOnlyWhatCameAfter() async throws {
        let request = Self.request(collects: false, limit: 100)
        let exchange = ResponseExchange(for: request)
        let consumed = Locked(0)
        #expect(!exchange.receivedBody(Data("early".utf8)) { consumed.withLock { $0 += 1 } })
        #expect(consumed.current == 1)
        let madeWaiter = Locked(false)
        let readsOn = exchange.receivedBody(Data("early too".utf8)) {
            madeWaiter.withLock { $0 = true }
            return {}
        }
        #expect(readsOn, "refused, so the client reads on")
        #expect(!madeWaiter.current, "a refused part never waits")
        exchange.receivedHead()
        let response = try await Self.response(of: exchange, status: 200)
        #expect(exchange.receivedBody(Data("body".utf8)) { consumed.withLock { $0 += 1 } })
        exchange.end()
        #expect(try await response.body.collect(upTo: 100) == Data("body".utf8))
        #expect(consumed.current == 2)
    }

    @Test func aStreamedPartFromAClientThatCannotWaitIsCountedAsItArrives() async throws {
        let request = Self.request(collects: false, limit: 2)
        let exchange = ResponseExchange(for: request)
        exchange.receivedHead()
        #expect(!exchange.receivedBody(Data("abcd".utf8)))
        #expect(request.control.isAborted)
    }

    @Test func aFailureBeforeTheHeadIsThrownAsTheClientNamedIt() async {
        let exchange = ResponseExchange(for: Self.request(collects: true, limit: 10))
        #expect(exchange.end(failure: URLError(.cannotConnectToHost)))
        #expect(!exchange.end(), "only the first end counts")
        await #expect(throws: URLError.self) { _ = try await Self.response(of: exchange, status: 200) }
    }
}

/// The rules `URLSessionTransport` keeps beside its exchange, fed as the
/// session's delegate would feed them: no server.
@Suite struct URLSessionExchangeTests {
    private static let url = URL(string: "http://127.0.0.1:9/")!

    private static func exchange(refusesCompressedBody: Bool = true) -> URLSessionExchange {
        URLSessionExchange(TransportRequest(urlRequest: URLRequest(url: url)), maximumUnreadBytes: nil,
                           refusesCompressedBody: refusesCompressedBody)
    }

    private static func head(_ status: Int, _ fields: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    /// A task that is never resumed: what `completed` reads of it is its
    /// response, which it has none of.
    private static let task = URLSession(configuration: .ephemeral).dataTask(with: url)

    @Test func aRefusedChallengeEndsWithTheResponseNotTheCancellation() async throws {
        let exchange = Self.exchange()
        #expect(exchange.received(Self.head(401, ["WWW-Authenticate": "Basic"])))
        exchange.received(Data("denied".utf8))
        exchange.challenged()
        exchange.completed(Self.task, error: URLError(.cancelled))
        let response = try await exchange.response()
        #expect(response.statusCode == 401)
        #expect(try await response.body.collect(upTo: 100) == Data("denied".utf8))
    }

    @Test func aCompressedAnswerNobodyAskedForIsRefusedAtItsHead() async {
        let exchange = Self.exchange()
        #expect(!exchange.received(Self.head(200, ["Content-Encoding": "gzip"])), "the task is to be cancelled")
        exchange.completed(Self.task, error: URLError(.cancelled))
        do {
            _ = try await exchange.response()
            Issue.record("expected the refusal")
        } catch {
            guard case .invalidResponse(let cause) = error as? NetworkError else { Issue.record("got \(error)"); return }
            #expect((cause as? RefusedContentEncoding)?.contentEncoding == "gzip")
        }
        #expect(Self.exchange(refusesCompressedBody: false).received(Self.head(200, ["Content-Encoding": "gzip"])))
    }

    @Test func aRefusedCertificateIsTheFailureWhateverTheTaskReports() async {
        let exchange = Self.exchange()
        exchange.refusedTrust(ServerTrustFailure(host: "example.com", reason: .unsupportedSetting("test")))
        exchange.completed(Self.task, error: URLError(.cancelled))
        do {
            _ = try await exchange.response()
            Issue.record("expected serverTrustFailed")
        } catch {
            guard case .serverTrustFailed = error as? NetworkError else { Issue.record("got \(error)"); return }
        }
    }

    @Test func aTaskThatEndsWithNeitherHeadNorErrorIsABadResponse() async {
        let exchange = Self.exchange()
        exchange.completed(Self.task, error: nil)
        await #expect(throws: URLError.self) { _ = try await exchange.response() }
    }
}
