@testable import Courier
import Foundation
import Testing

/// The transitions of a transfer's control, one by one: no transport, no
/// clock, no watchdog.
@Suite struct TransferControlStateMachineTests {
    typealias Machine = TransferControlStateMachine

    /// Counts the handlers run.
    final class Runs: Sendable {
        private let count = Locked(0)
        var value: Int { count.withLock { $0 } }
        var handler: Machine.Handler { { self.count.withLock { $0 += 1 } } }
    }

    @Test func abortingReturnsEveryHandlerOnceAndTheFirstReasonWins() {
        var machine = Machine(bodyLimit: nil, now: 0)
        let runs = Runs()
        let registered = [machine.onAbort(runs.handler), machine.onAbort(runs.handler)]
        #expect(registered == [true, true])
        machine.abort(.timedOut(.idle(1))).run()
        #expect(runs.value == 2)
        machine.abort(.cancelled).run()
        #expect(runs.value == 2, "a second abort runs nothing")
        guard case .timedOut = machine.reason else { Issue.record("the first reason should stay"); return }
    }

    @Test func aHandlerRegisteredAfterTheStopIsRefusedSoTheCallerRunsIt() {
        var machine = Machine(bodyLimit: nil, now: 0)
        _ = machine.abort(.cancelled)
        let registered = machine.onAbort({})
        #expect(!registered)
    }

    @Test func bytesAreKeptUpToTheLimitAndThePassingOnesStopTheTransfer() {
        let limit = ResponseTooLarge(limit: .memory, bytes: 10)
        var machine = Machine(bodyLimit: limit, now: 0)
        let runs = Runs()
        _ = machine.onAbort(runs.handler)
        guard case .keep = machine.didReceive(byteCount: 10, now: 1) else { Issue.record("at the limit: keep"); return }
        guard case .stop(let handlers) = machine.didReceive(byteCount: 1, now: 2) else { Issue.record("past it: stop"); return }
        handlers.run()
        #expect(runs.value == 1)
        guard case .tooLarge(let reason) = machine.reason, reason == limit else { Issue.record("expected the limit"); return }
        guard case .drop = machine.didReceive(byteCount: 1, now: 3) else { Issue.record("after the stop: drop"); return }
    }

    @Test func anUploadTotalIsNewsOnceEvenWhenReportedTwice() {
        var machine = Machine(bodyLimit: nil, now: 0)
        let news = [machine.didSend(100, now: 1), machine.didSend(100, now: 2), machine.didSend(200, now: 3)]
        #expect(news == [true, false, true])
        #expect(machine.activity.last == 3)
    }

    @Test func theIdleClockRunsOnlyWhileTheTransferWaitsOnTheServer() {
        var machine = Machine(bodyLimit: nil, now: 0)
        #expect(machine.activity.waitsOnServer, "until the head arrives")
        machine.touch(now: 5, waitsOnServer: false)
        let activity5 = machine.activity
        #expect(activity5.last == 5 && activity5.waitsOnServer == false)
        machine.touch(now: 6)
        let activity6 = machine.activity
        #expect(activity6.last == 6 && activity6.waitsOnServer == false, "a touch alone keeps the clock as it was")
        machine.touch(now: 7, waitsOnServer: true)
        let activity7 = machine.activity
        #expect(activity7.last == 7 && activity7.waitsOnServer == true)
        _ = machine.abort(.cancelled)
        machine.touch(now: 9, waitsOnServer: false)
        let stopped = machine.activity
        #expect(stopped.last == 7 && stopped.waitsOnServer == true, "a stopped transfer keeps its last activity")
    }
}
