@testable import CourierAsyncHTTPClient
import Foundation
import Testing

/// The transitions of one request through AsyncHTTPClient's delegate API, as
/// the transport follows it, with plain values for the caller, the head, the
/// parts and the writer: no client, no event loop.
@Suite struct AsyncHTTPClientExchangeStateMachineTests {
    typealias Machine = AsyncHTTPClientExchangeStateMachine<Int, String, String, String>

    @Test func aCollectedBodyKeepsItsPartsUntilTheEnd() {
        var machine = Machine(collects: true)
        #expect(machine.received(head: "200") { "writer" } == nil)
        guard case .collected = machine.received(part: "a", keep: true),
              case .collected = machine.received(part: "b", keep: true) else { Issue.record("expected collected"); return }
        let (ending, first) = machine.end()
        guard case .collected("200", let parts) = ending else { Issue.record("expected the parts"); return }
        #expect(parts == ["a", "b"])
        #expect(first)
        #expect(!machine.end().first, "the slot is given back once")
    }

    @Test func aPartTheLimitRefusesLetsTheCollectedPartsGo() {
        var machine = Machine(collects: true)
        _ = machine.received(head: "200") { "writer" }
        _ = machine.received(part: "a", keep: true)
        _ = machine.received(part: "b", keep: false)
        guard case .collected(_, let parts) = machine.end().ending else { Issue.record("expected collected"); return }
        #expect(parts.isEmpty)
    }

    @Test func aStreamedBodyMakesItsWriterAtTheHeadAndYieldsEveryPart() {
        var machine = Machine(collects: false)
        #expect(machine.received(head: "200") { "writer" } == "writer")
        #expect(machine.received(head: "again") { "other" } == nil, "one head")
        guard case .yield("writer") = machine.received(part: "a", keep: true) else { Issue.record("expected yield"); return }
        guard case .streamed("writer") = machine.end().ending else { Issue.record("expected the writer"); return }
        guard case .drop = machine.received(part: "late", keep: true) else { Issue.record("after the end: drop"); return }
    }

    @Test func anEndBeforeAnyHeadIsHeadless() {
        var machine = Machine(collects: true)
        guard case .drop = machine.received(part: "a", keep: true) else { Issue.record("no head: drop"); return }
        guard case .headless = machine.end().ending else { Issue.record("expected headless"); return }
    }

    @Test func anOutcomeReachesACallerWhoWaitsAndOneWhoAsksLater() {
        var waiting = Machine.Delivery<String>.waiting(nil)
        #expect(waiting.ask(1) == nil)
        #expect(waiting.deliver("response") == 1)
        #expect(waiting.deliver("second") == nil, "the first outcome wins")

        var early = Machine.Delivery<String>.waiting(nil)
        #expect(early.deliver("response") == nil, "nobody waits yet")
        #expect(early.ask(2) == "response")
        #expect(early.deliver("second") == nil)
    }
}
