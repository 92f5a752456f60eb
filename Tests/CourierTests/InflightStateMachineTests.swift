@testable import Courier
import Testing

/// The transitions of the in-flight registry's table, one by one: callers
/// joining, leaving and being resumed, with strings for the continuations and
/// the tasks, so no task, lock or timing is involved.
@Suite struct InflightStateMachineTests {
    typealias Machine = InflightStateMachine<String, String, String>

    private static func cancelled(_ action: Machine.LeaveAction) -> (waiter: String, task: String?)? {
        guard case .cancelled(let waiter, let task) = action else { return nil }
        return (waiter, task)
    }

    private static func cancels(_ action: Machine.StartedAction) -> String? {
        guard case .cancel(let task) = action else { return nil }
        return task
    }

    @Test func theFirstCallerStartsAFlightAndTheOthersWaitForItsResult() {
        var machine = Machine()
        let first = machine.join("GET /a", waiter: 1, "first")
        #expect(first == .start(flight: 1))
        let second = machine.join("GET /a", waiter: 2, "second")
        #expect(second == .wait)
        let otherKey = machine.join("GET /b", waiter: 3, "other")
        #expect(otherKey == .start(flight: 2), "another key is another flight")
        let made = machine.started("GET /a", flight: 1, task: "task a")
        #expect(Self.cancels(made) == nil)
        let late = machine.join("GET /a", waiter: 4, "late")
        #expect(late == .wait, "a running flight takes waiters too")
        #expect(machine.waiterCount == 4)
        let resumed = machine.finished("GET /a", flight: 1)
        #expect(Set(resumed) == ["first", "second", "late"])
        #expect(machine.flights["GET /a"] == nil)
        #expect(machine.waiterCount == 1)
        let again = machine.join("GET /a", waiter: 5, "again")
        #expect(again == .start(flight: 3), "after its end, a key starts a new flight")
    }

    @Test func aCallerThatLeavesIsResumedAloneAndTheFlightGoesOnForTheOthers() throws {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "first")
        _ = machine.join("GET /a", waiter: 2, "second")
        _ = machine.started("GET /a", flight: 1, task: "task")
        let leaving = machine.leave("GET /a", waiter: 1)
        let left = try #require(Self.cancelled(leaving))
        #expect(left.waiter == "first")
        #expect(left.task == nil, "a waiter remains: the task goes on")
        let resumed = machine.finished("GET /a", flight: 1)
        #expect(resumed == ["second"])
    }

    @Test func theLastCallerToLeaveARunningFlightCancelsItsTask() throws {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "only")
        _ = machine.started("GET /a", flight: 1, task: "task")
        let leaving = machine.leave("GET /a", waiter: 1)
        let left = try #require(Self.cancelled(leaving))
        #expect(left.waiter == "only")
        #expect(left.task == "task")
        #expect(machine.flights.isEmpty)
        let resumed = machine.finished("GET /a", flight: 1)
        #expect(resumed.isEmpty, "the cancelled task's result reaches nobody")
    }

    @Test func aFlightLeftWhileItsTaskIsMadeIsCancelledOnceTheTaskExists() throws {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "only")
        let leaving = machine.leave("GET /a", waiter: 1)
        let left = try #require(Self.cancelled(leaving))
        #expect(left.task == nil, "there is no task yet to cancel")
        #expect(machine.flights.isEmpty)
        let made = machine.started("GET /a", flight: 1, task: "task")
        #expect(Self.cancels(made) == "task")
    }

    @Test func aFlightThatReplacedALeftOneIsNotEndedByTheOldTask() {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "gone")
        _ = machine.started("GET /a", flight: 1, task: "old task")
        _ = machine.leave("GET /a", waiter: 1)
        let replacement = machine.join("GET /a", waiter: 2, "new")
        #expect(replacement == .start(flight: 2))
        // The old task ends late, before and after the new one is made.
        let oldEndsFirst = machine.finished("GET /a", flight: 1)
        #expect(oldEndsFirst.isEmpty)
        let made = machine.started("GET /a", flight: 2, task: "new task")
        #expect(Self.cancels(made) == nil)
        let oldEndsLater = machine.finished("GET /a", flight: 1)
        #expect(oldEndsLater.isEmpty)
        #expect(machine.waiterCount == 1)
        let resumed = machine.finished("GET /a", flight: 2)
        #expect(resumed == ["new"])
    }

    @Test func aTaskThatEndsBeforeItIsRecordedResumesItsWaitersOnce() {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "only")
        let resumed = machine.finished("GET /a", flight: 1)
        #expect(resumed == ["only"])
        // Cancelling a task that has ended does nothing; the flight is gone.
        let madeLate = machine.started("GET /a", flight: 1, task: "task")
        #expect(Self.cancels(madeLate) == "task")
        #expect(machine.flights.isEmpty)
    }

    @Test func aCallerResumedAlreadyLeavesNothingToDo() {
        var machine = Machine()
        _ = machine.join("GET /a", waiter: 1, "only")
        _ = machine.started("GET /a", flight: 1, task: "task")
        _ = machine.finished("GET /a", flight: 1)
        guard case .none = machine.leave("GET /a", waiter: 1) else { Issue.record("expected none"); return }
        _ = machine.join("GET /a", waiter: 2, "next")
        guard case .none = machine.leave("GET /a", waiter: 1) else {
            Issue.record("a waiter of an earlier flight never leaves a later one")
            return
        }
        #expect(machine.waiterCount == 1)
    }
}
