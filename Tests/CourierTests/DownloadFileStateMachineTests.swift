@testable import Courier
import Foundation
import Testing

/// The transitions of a download's temporary file, one by one: what is done
/// with its handle and the file at each step, without touching a disk.
@Suite struct DownloadFileStateMachineTests {
    typealias Machine = DownloadFileStateMachine
    let destination = URL(fileURLWithPath: "/downloads/report.pdf")

    @Test func aFileIsWrittenWhileOpenThenClosedOnceAndPlaced() {
        var machine = Machine()
        #expect(machine.acceptsWrites)
        let closedFirst = machine.close()
        #expect(closedFirst, "the first close closes the handle")
        let closedAgain = machine.close()
        #expect(!closedAgain, "a second close does nothing")
        #expect(!machine.acceptsWrites, "nothing is written after close")
        let placing = machine.place()
        #expect(placing == .move(closingHandle: false))
        machine.moved(to: destination)
        #expect(machine.phase == .placed(destination))
        let placingAgain = machine.place()
        #expect(placingAgain == .alreadyPlaced(destination), "placing again names the same place")
        let discarding = machine.discard()
        #expect(discarding == .none, "a placed file is never removed")
    }

    @Test func placingAnOpenFileClosesItsHandleFirst() {
        var machine = Machine()
        let placing = machine.place()
        #expect(placing == .move(closingHandle: true))
        #expect(!machine.acceptsWrites)
        let closing = machine.close()
        #expect(!closing, "placing closed it")
    }

    @Test func aMoveThatFailsLeavesTheFileToBeDiscarded() {
        var machine = Machine()
        _ = machine.place()
        let removeNow = machine.moveFailed()
        #expect(!removeNow, "no discard came during the move")
        #expect(machine.phase == .closed)
        let discarding = machine.discard()
        #expect(discarding == .remove(closingHandle: false))
        #expect(machine.phase == .discarded)
        let discardingAgain = machine.discard()
        #expect(discardingAgain == .none, "removed once")
    }

    @Test func aFileIsMovedOnceWhateverCallsOverlapTheMove() {
        var machine = Machine()
        _ = machine.place()
        let placingMeanwhile = machine.place()
        #expect(placingMeanwhile == .refuse, "a second move would place a second copy")
        let discardingMeanwhile = machine.discard()
        #expect(discardingMeanwhile == .none, "the file is the mover's until the move ends")
        machine.moved(to: destination)
        #expect(machine.phase == .placed(destination), "a placed file stays, whatever discard came meanwhile")
    }

    @Test func aDiscardDuringAMoveThatFailsRemovesTheFileThen() {
        var machine = Machine()
        _ = machine.place()
        _ = machine.discard()
        let removeNow = machine.moveFailed()
        #expect(removeNow)
        #expect(machine.phase == .discarded)
        let discardingAgain = machine.discard()
        #expect(discardingAgain == .none)
    }

    @Test func discardingAnOpenFileClosesAndRemovesIt() {
        var machine = Machine()
        let discarding = machine.discard()
        #expect(discarding == .remove(closingHandle: true))
        #expect(!machine.acceptsWrites)
        let closing = machine.close()
        #expect(!closing, "its handle was closed by the discard")
        let placing = machine.place()
        #expect(placing == .refuse, "a discarded file is never placed")
    }

    @Test func aMoveReportedForADiscardedFileChangesNothing() {
        var machine = Machine()
        _ = machine.discard()
        machine.moved(to: destination)
        #expect(machine.phase == .discarded)
        let removeNow = machine.moveFailed()
        #expect(!removeNow, "removed by the discard already")
    }
}
