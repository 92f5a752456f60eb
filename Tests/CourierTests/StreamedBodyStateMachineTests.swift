@testable import Courier
import Foundation
import Testing

/// The transitions of a streamed call's body, one by one: what is read,
/// stopped, decoded and reported at each step, without a transport.
@Suite struct StreamedBodyStateMachineTests {
    /// Stands for the body reader: a name to tell two copies apart, and the
    /// bytes it has counted.
    struct Reader: CountingBodyReader, Equatable {
        var name = "reader"
        var received: Int64 = 0
    }

    typealias Machine = StreamedBodyStateMachine<Reader>

    /// A decoder that is never called: the machine only hands decoders out.
    final class Decoder: StreamedBodyDecoder {
        func decode(_ chunk: Data) throws(NetworkError) -> Data { chunk }
        func finish() throws(NetworkError) -> Data { Data() }
    }

    func reads(_ action: Machine.ReadAction) -> Reader? {
        if case .read(let reader) = action { return reader }
        return nil
    }

    func ends(_ action: Machine.ReadAction) -> Bool {
        if case .end = action { return true }
        return false
    }

    @Test func aBodyIsReadChunkByChunkThenItsTailThenItEndsOnce() throws {
        var machine = Machine(Reader())
        #expect(machine.openReader == Reader(), "a body dropped before its first read is stopped")
        let firstRead = machine.read()
        var reader = try #require(reads(firstRead))
        reader.received = 10
        machine.readerReturned(reader, atEnd: false)
        #expect(machine.received == 10)
        let secondRead = machine.read()
        #expect(reads(secondRead) == Reader(received: 10), "the next read starts from the copy that counted the last chunk")
        reader.received = 15
        machine.readerReturned(reader, atEnd: false)
        machine.countElement()
        #expect(machine.openReader == Reader(received: 15))
        _ = machine.read()
        machine.readerReturned(reader, atEnd: true)
        #expect(machine.openReader == nil, "a body read to its end is not stopped")
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

    @Test func aReaderBackFromABodyStoppedMeanwhileLeavesItEnded() throws {
        var machine = Machine(Reader())
        var reader = try #require(reads(machine.read()))
        let finishing = machine.finish(.cancelled, elapsed: 1)
        #expect(finishing?.outcome == .cancelled)
        reader.received = 7
        machine.readerReturned(reader, atEnd: true)
        #expect(machine.openReader == nil)
        let tail = machine.takeTail { [Decoder()] }
        #expect(tail.isEmpty, "a body stopped while a read was on its way gives no tail")
        let readAfterStop = machine.read()
        #expect(ends(readAfterStop))
    }

    @Test func aStoppedOrFailedBodyGivesNoTail() throws {
        var stopped = Machine(Reader())
        _ = stopped.read()
        #expect(stopped.openReader == Reader(), "stopping closes the body being read")
        let finishing = stopped.finish(.cancelled, elapsed: 1)
        let summary = try #require(finishing)
        #expect(summary.outcome == .cancelled)
        let tail = stopped.takeTail { [Decoder()] }
        #expect(tail.isEmpty, "bytes that never all arrived are not decoded to the end")
        let readAfterStop = stopped.read()
        #expect(ends(readAfterStop))

        var failed = Machine(Reader())
        let read = failed.read()
        var reader = try #require(reads(read))
        reader.received = 100
        failed.readerReturned(reader, atEnd: false)
        let failing = failed.finish(.failed(.responseTooLarge(ResponseTooLarge(limit: .memory, bytes: 64))), elapsed: 1)
        let failure = try #require(failing)
        #expect(failure.bytes == 100, "the summary counts what was read, the chunk past the limit included")
        let failedTail = failed.takeTail { [Decoder()] }
        #expect(failedTail.isEmpty)
    }

    @Test func aBodyNeverReadEndsAsCancelledWithItsReaderStopped() throws {
        var machine = Machine(Reader())
        #expect(machine.openReader == Reader(), "a body dropped unread closes its connection")
        let finishing = machine.finish(.cancelled, elapsed: 0)
        let summary = try #require(finishing)
        #expect(summary == StreamSummary(bytes: 0, elements: 0, duration: 0, outcome: .cancelled))
        #expect(machine.openReader == nil)
    }

    @Test func theDecodersAreTakenOnceAtTheFirstChunk() {
        var machine = Machine(Reader())
        var asked = 0
        let decoder = Decoder()
        let first = machine.decoders { asked += 1; return [decoder] }
        let second = machine.decoders { asked += 1; return [Decoder(), Decoder()] }
        #expect(asked == 1, "registered decoders are read once")
        #expect(first.count == 1 && second.count == 1 && second.first === decoder)
    }
}
