@testable import Courier
import Foundation
import Testing

/// The transitions of a streamed call's body, one by one: what is read,
/// stopped, decoded and reported at each step, without a transport.
@Suite struct StreamedBodyStateMachineTests {
    /// Stands for the transport's stream: a name to tell two apart.
    typealias Machine = StreamedBodyStateMachine<String>

    /// A decoder that is never called: the machine only hands decoders out.
    final class Decoder: StreamedBodyDecoder {
        func decode(_ chunk: Data) throws(NetworkError) -> Data { chunk }
        func finish() throws(NetworkError) -> Data { Data() }
    }

    func readsStream(_ action: Machine.ReadAction) -> String? {
        if case .read(let stream) = action { return stream }
        return nil
    }

    func delivers(_ action: Machine.ReadAction) -> Data?? {
        if case .deliver(let data) = action { return .some(data) }
        return .none
    }

    func ends(_ action: Machine.ReadAction) -> Bool {
        if case .end = action { return true }
        return false
    }

    @Test func aStreamIsReadChunkByChunkThenItsTailThenItEndsOnce() throws {
        var machine = Machine(.stream("transport"))
        #expect(machine.unreadStream == "transport", "an abort before the first read stops the stream")
        let firstRead = machine.read()
        #expect(readsStream(firstRead) == "transport")
        #expect(machine.unreadStream == nil, "once read, the reader's read fails instead")
        #expect(machine.openStream == "transport")
        let first = machine.arrived(10)
        let second = machine.arrived(5)
        #expect((first, second) == (10, 15), "the bytes so far, for the limit")
        machine.countElement()
        let secondRead = machine.read()
        #expect(readsStream(secondRead) == "transport", "every read goes to the stream until it ends")
        let received = machine.streamEnded()
        #expect(received == 15, "to compare with Content-Length")
        #expect(machine.openStream == nil, "an ended stream is not stopped")
        let readAfterTheEnd = machine.read()
        #expect(ends(readAfterTheEnd))
        let decoder = Decoder()
        let tail = machine.takeTail { [decoder] }
        #expect(tail.count == 1 && tail.first === decoder)
        let tailAgain = machine.takeTail { [decoder] }
        #expect(tailAgain.isEmpty, "the tail is taken once")
        let finishing = machine.finish(.finished, elapsed: 2)
        let summary = try #require(finishing)
        #expect(summary == StreamSummary(bytes: 15, elements: 1, duration: 2, outcome: .finished))
        let finishedAgain = machine.finish(.cancelled, elapsed: 3)
        #expect(finishedAgain == nil, "the plugins hear of the end once")
        let readAfterFinish = machine.read()
        #expect(ends(readAfterFinish))
    }

    @Test func aWholeBodyIsOneChunkThenItsEnd() throws {
        var machine = Machine(.whole(Data("hello".utf8)))
        #expect(machine.unreadStream == nil && machine.openStream == nil, "nothing to stop")
        let wholeRead = machine.read()
        #expect(delivers(wholeRead) == .some(Data("hello".utf8)))
        let readAfterWhole = machine.read()
        #expect(ends(readAfterWhole))
        #expect(machine.received == 5)
        let tail = machine.takeTail { [Decoder()] }
        #expect(tail.count == 1, "a whole body ends as it should: the decoders give their tail")
        let finishing = machine.finish(.finished, elapsed: 0)
        let summary = try #require(finishing)
        #expect(summary.bytes == 5)
    }

    @Test func anEmptyWholeBodyEndsAtItsFirstRead() {
        var machine = Machine(.whole(Data()))
        let emptyRead = machine.read()
        #expect(delivers(emptyRead) == .some(nil))
        let readAfterEmpty = machine.read()
        #expect(ends(readAfterEmpty))
    }

    @Test func aStoppedOrFailedBodyGivesNoTail() throws {
        var stopped = Machine(.stream("transport"))
        _ = stopped.read()
        #expect(stopped.openStream == "transport", "stopping closes the stream being read")
        let finishing = stopped.finish(.cancelled, elapsed: 1)
        let summary = try #require(finishing)
        #expect(summary.outcome == .cancelled)
        let tail = stopped.takeTail { [Decoder()] }
        #expect(tail.isEmpty, "bytes that never all arrived are not decoded to the end")
        let readAfterStop = stopped.read()
        #expect(ends(readAfterStop))

        var failed = Machine(.stream("transport"))
        _ = failed.read()
        _ = failed.arrived(100)
        let failing = failed.finish(.failed(.responseTooLarge(ResponseTooLarge(limit: .memory, bytes: 64))), elapsed: 1)
        let failure = try #require(failing)
        #expect(failure.bytes == 100)
        let failedTail = failed.takeTail { [Decoder()] }
        #expect(failedTail.isEmpty)
    }

    @Test func aBodyNeverReadEndsAsCancelledWithItsStreamStopped() throws {
        var machine = Machine(.stream("transport"))
        #expect(machine.openStream == "transport", "a body dropped unread closes its connection")
        let finishing = machine.finish(.cancelled, elapsed: 0)
        let summary = try #require(finishing)
        #expect(summary == StreamSummary(bytes: 0, elements: 0, duration: 0, outcome: .cancelled))
        #expect(machine.openStream == nil && machine.unreadStream == nil)
    }

    @Test func theDecodersAreTakenOnceAtTheFirstChunk() {
        var machine = Machine(.stream("transport"))
        var asked = 0
        let decoder = Decoder()
        let first = machine.decoders { asked += 1; return [decoder] }
        let second = machine.decoders { asked += 1; return [Decoder(), Decoder()] }
        #expect(asked == 1, "registered decoders are read once")
        #expect(first.count == 1 && second.count == 1 && second.first === decoder)
    }
}
