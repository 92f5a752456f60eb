@testable import CourierAsyncHTTPClient
import Testing

/// The transitions of a streamed request body's reader, with strings for its
/// task: started and then cancelled, or cancelled before it started.
@Suite struct BodyProducerStateMachineTests {
    typealias Machine = BodyProducerStateMachine<String>

    private static func cancels(_ action: Machine.StartedAction) -> String? {
        guard case .cancel(let handle) = action else { return nil }
        return handle
    }

    @Test func aReadingThatStartedIsCancelledWhenTheRequestEnds() {
        var machine = Machine()
        let started = machine.started("reader")
        #expect(Self.cancels(started) == nil)
        let cancelled = machine.cancel()
        #expect(cancelled == "reader")
        let cancelledAgain = machine.cancel()
        #expect(cancelledAgain == nil, "cancelled once")
    }

    @Test func aRequestThatEndedBeforeTheReadingStartedCancelsItAsItStarts() {
        var machine = Machine()
        let cancelled = machine.cancel()
        #expect(cancelled == nil, "nothing to cancel yet")
        let started = machine.started("reader")
        #expect(Self.cancels(started) == "reader")
    }

    @Test func aSecondReadingIsRefusedAndTheFirstStaysTheOneToCancel() {
        var machine = Machine()
        _ = machine.started("first")
        let second = machine.started("second")
        #expect(Self.cancels(second) == "second")
        let cancelled = machine.cancel()
        #expect(cancelled == "first")
    }
}
