@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The transitions of one `URLSession` task as `URLSessionTransport` follows
/// it, with numbers for the waiting caller and the body's writer: no
/// session, no server.
@Suite struct URLSessionExchangeStateMachineTests {
    typealias Machine = URLSessionExchangeStateMachine<Int, String>

    private static let head = HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: 200, httpVersion: nil, headerFields: nil)!

    @Test func aCollectedBodyReachesTheCallerWholeWhenTheTaskCompletes() {
        var machine = Machine(streamingTo: nil)
        machine.start(1)
        #expect(machine.received(head: Self.head) == nil, "the caller waits for the body")
        guard case .collected = machine.received(Data("ab".utf8), keep: true),
              case .collected = machine.received(Data("c".utf8), keep: true) else { Issue.record("expected collected"); return }
        guard case .respond(1, _, let body) = machine.completed(error: nil, taskResponse: { nil }) else {
            Issue.record("expected the response")
            return
        }
        #expect(body == Data("abc".utf8))
        guard case .none = machine.completed(error: nil, taskResponse: { nil }) else { Issue.record("told twice"); return }
    }

    @Test func bytesTheLimitRefusesLetTheCollectedBodyGo() {
        var machine = Machine(streamingTo: nil)
        machine.start(1)
        _ = machine.received(head: Self.head)
        _ = machine.received(Data("abc".utf8), keep: true)
        _ = machine.received(Data("d".utf8), keep: false)
        guard case .respondPartially(1, _, let body, _) = machine.completed(error: URLError(.cancelled), taskResponse: { nil }) else {
            Issue.record("expected the partial response")
            return
        }
        #expect(body.isEmpty)
    }

    @Test func aStreamedBodyResumesTheCallerAtTheHeadAndGoesThroughTheWriter() {
        var machine = Machine(streamingTo: "writer")
        machine.start(1)
        #expect(machine.received(head: Self.head) == 1)
        guard case .yield("writer") = machine.received(Data("a".utf8), keep: true) else { Issue.record("expected yield"); return }
        guard case .drop = machine.received(Data("b".utf8), keep: false) else { Issue.record("expected drop"); return }
        guard case .finish("writer", nil) = machine.completed(error: nil, taskResponse: { nil }) else {
            Issue.record("expected the writer to finish")
            return
        }
    }

    /// A head refused (a compressed answer nobody asked for) fails the
    /// caller at once; the cancelled task's completion and any bytes it still
    /// reports reach nobody.
    @Test func aRefusedHeadFailsTheCallerOnceAndEndsTheExchange() {
        var machine = Machine(streamingTo: "writer")
        machine.start(1)
        #expect(machine.refused() == 1)
        #expect(machine.refused() == nil, "told once")
        guard case .drop = machine.received(Data("a".utf8), keep: true) else { Issue.record("expected drop"); return }
        guard case .none = machine.completed(error: URLError(.cancelled), taskResponse: { Self.head }) else {
            Issue.record("the caller was told twice")
            return
        }
        var late = Machine(streamingTo: nil)
        late.start(2)
        _ = late.received(head: Self.head)
        #expect(late.refused() == nil, "only a head still awaited can be refused")
    }

    @Test func aFailureBeforeAnyHeadFailsTheCallerAndNoHeadAtAllIsABadResponse() {
        var failing = Machine(streamingTo: nil)
        failing.start(1)
        guard case .fail(1, let error) = failing.completed(error: URLError(.timedOut), taskResponse: { nil }),
              (error as? URLError)?.code == .timedOut else { Issue.record("expected the failure"); return }
        var empty = Machine(streamingTo: nil)
        empty.start(2)
        guard case .fail(2, let error) = empty.completed(error: nil, taskResponse: { nil }),
              (error as? URLError)?.code == .badServerResponse else { Issue.record("expected a bad response"); return }
    }

    @Test func aRefusedChallengeEndsWithTheResponseNotTheCancellation() {
        var machine = Machine(streamingTo: nil)
        machine.start(1)
        _ = machine.received(head: Self.head)
        machine.refusedChallenge()
        guard case .respond(1, _, _) = machine.completed(error: URLError(.cancelled), taskResponse: { nil }) else {
            Issue.record("expected the 401's response")
            return
        }
    }

    @Test func aRefusedCertificateIsTheFailureWhateverFoundationSays() {
        var machine = Machine(streamingTo: "writer")
        machine.start(1)
        machine.refusedTrust(ServerTrustFailure(host: "example.com", reason: .unsupportedSetting("test")))
        guard case .fail(1, let error) = machine.completed(error: URLError(.cancelled), taskResponse: { nil }),
              case .serverTrustFailed = error as? NetworkError else { Issue.record("expected serverTrustFailed"); return }
    }

    @Test func bytesWithNobodyToTakeThemAreDropped() {
        var machine = Machine(streamingTo: "writer")
        guard case .drop = machine.received(Data("a".utf8), keep: true) else { Issue.record("no head yet: drop"); return }
        machine.start(1)
        _ = machine.received(head: Self.head)
        _ = machine.completed(error: nil, taskResponse: { nil })
        guard case .drop = machine.received(Data("b".utf8), keep: true) else { Issue.record("after the end: drop"); return }
    }
}
