@testable import CourierAsyncHTTPClient
import Testing

/// The transitions of work started elsewhere (a request's start on its
/// event loop, a streamed request body's reader), with strings for what
/// waits for it and for its handle: started and then stopped, stopped before
/// it started, started twice.
@Suite struct StartStateMachineTests {
    typealias Machine = StartStateMachine<String, String>

    private static func cancels(_ action: Machine.StartedAction) -> String? {
        guard case .cancel(let handle) = action else { return nil }
        return handle
    }

    private static func ends(_ action: Machine.StopAction) -> String? {
        guard case .end(let waiter) = action else { return nil }
        return waiter
    }

    private static func cancels(_ action: Machine.StopAction) -> String? {
        guard case .cancel(let handle) = action else { return nil }
        return handle
    }

    private static func isNone(_ action: Machine.StopAction) -> Bool {
        if case .none = action { return true }
        return false
    }

    private static func holdsWaiter(_ machine: Machine) -> Bool {
        if case .waiting = machine.phase { return true }
        return false
    }

    @Test func workThatStartedIsCancelledWhenItStops() {
        var machine = Machine(waiting: "exchange")
        let started = machine.started("task")
        #expect(Self.cancels(started) == nil)
        #expect(!Self.holdsWaiter(machine), "once started, only the handle is held")
        let stopped = machine.stop()
        #expect(Self.cancels(stopped) == "task")
        let stoppedAgain = machine.stop()
        #expect(Self.isNone(stoppedAgain), "stopped once")
    }

    @Test func workStoppedBeforeItStartedEndsItsWaiterAndIsCancelledAsItStarts() {
        var machine = Machine(waiting: "exchange")
        let stopped = machine.stop()
        #expect(Self.ends(stopped) == "exchange", "the start may never run: what waits for it ends here")
        #expect(!Self.holdsWaiter(machine))
        let started = machine.started("task")
        #expect(Self.cancels(started) == "task")
        let stoppedAgain = machine.stop()
        #expect(Self.isNone(stoppedAgain), "the waiter is ended once")
    }

    @Test func aSecondStartIsRefusedAndTheFirstStaysTheOneToCancel() {
        var machine = Machine(waiting: "exchange")
        _ = machine.started("first")
        let second = machine.started("second")
        #expect(Self.cancels(second) == "second")
        let stopped = machine.stop()
        #expect(Self.cancels(stopped) == "first")
    }
}
