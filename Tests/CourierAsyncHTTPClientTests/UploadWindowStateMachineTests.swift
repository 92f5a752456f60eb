@testable import CourierAsyncHTTPClient
import Testing

/// The transitions of an upload's write window, with strings for the waiting
/// producer: one write at a time, the producer resumed when it is taken, and
/// the first failure ending the upload.
@Suite struct UploadWindowStateMachineTests {
    typealias Machine = UploadWindowStateMachine<String>

    struct Refused: Error, Equatable {}

    private static func isIdle(_ machine: Machine) throws -> Bool {
        if case .idle = try machine.check() { return true }
        return false
    }

    @Test func aWriteMakesTheWindowBusyUntilItIsTaken() throws {
        var machine = Machine()
        #expect(try Self.isIdle(machine), "nothing written yet: write at once")
        machine.submitted()
        #expect(try !Self.isIdle(machine), "a write in flight: join the next chunks")
        let resumed = machine.completed(.success(()))
        #expect(resumed == nil, "nobody waited")
        #expect(try Self.isIdle(machine))
    }

    @Test func aProducerPastTheLimitWaitsForTheWriteAndIsResumedWhenItIsTaken() throws {
        var machine = Machine()
        machine.submitted()
        guard case .suspend = machine.wait("producer") else {
            Issue.record("a producer waiting for a write in flight is suspended")
            return
        }
        #expect(machine.completed(.success(())) == "producer")
        #expect(machine.completed(.success(())) == nil, "a producer is resumed once")
        guard case .resume = machine.wait("producer again") else {
            Issue.record("with nothing in flight, a wait ends at once")
            return
        }
    }

    @Test func theFirstFailedWriteEndsTheUpload() throws {
        var machine = Machine()
        machine.submitted()
        guard case .suspend = machine.wait("producer") else {
            Issue.record("a producer waiting for a write in flight is suspended")
            return
        }
        #expect(machine.completed(.failure(Refused())) == "producer", "the waiting producer is resumed, with the failure")
        #expect(throws: Refused.self, "the next chunk finds the upload failed") { try machine.check() }
        guard case .fail(let error) = machine.wait("producer") else {
            Issue.record("a wait after a failure fails at once")
            return
        }
        #expect(error is Refused)
    }
}
