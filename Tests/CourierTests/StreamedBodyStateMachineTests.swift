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

    /// Two iterators, told apart by the identity of an object each.
    final class Iterator: Sendable {}
    static let firstIterator = Iterator()
    static let secondIterator = Iterator()
    static let first = ObjectIdentifier(firstIterator)
    static let second = ObjectIdentifier(secondIterator)

    /// A decoder that is never called: the machine only hands decoders out.
    final class Decoder: StreamedBodyDecoder {
        func decode(_ chunk: Data) throws(NetworkError) -> Data { chunk }
        func finish() throws(NetworkError) -> Data { Data() }
    }

    /// No decoders registered.
    static let none: @Sendable () -> [any StreamedBodyDecoder] = { [] }

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
        let decoder = Decoder()
        #expect(machine.openReader == Reader(), "a body dropped before its first read is stopped")
        let firstRead = machine.read(by: Self.first)
        var reader = try #require(reads(firstRead))
        reader.received = 10
        machine.readerReturned(reader, atEnd: false, decoders: { [decoder] })
        #expect(machine.received == 10)
        let secondRead = machine.read(by: Self.first)
        #expect(reads(secondRead) == Reader(received: 10), "the next read starts from the copy that counted the last chunk")
        reader.received = 15
        machine.readerReturned(reader, atEnd: false, decoders: { [decoder] })
        machine.countElement()
        #expect(machine.openReader == Reader(received: 15))
        _ = machine.read(by: Self.first)
        machine.readerReturned(reader, atEnd: true, decoders: { [decoder] })
        #expect(machine.openReader == nil, "a body read to its end is not stopped")
        let readAfterTheEnd = machine.read(by: Self.first)
        #expect(ends(readAfterTheEnd))
        let tail = machine.takeTail { [decoder] }
        #expect(tail.count == 1 && tail.first === decoder)
        let tailAgain = machine.takeTail { [decoder] }
        #expect(tailAgain.isEmpty, "the tail is taken once")
        let finishing = machine.finish(.finished, elapsed: 2)
        let summary = try #require(finishing)
        #expect(summary == StreamSummary(bytes: 15, elements: 1, duration: 2, outcome: .finished))
        let finishedAgain = machine.finish(.cancelled, elapsed: 3)
        #expect(finishedAgain == nil, "the plugins hear of the end once")
        let readAfterFinish = machine.read(by: Self.first)
        #expect(ends(readAfterFinish))
    }

    /// The decoders come back with each chunk the reader returns, in the
    /// same step: asked of the plugins once, the same ones after, none with
    /// the end (the tail is taken apart, once).
    @Test func eachChunkComesBackWithTheDecodersAskedForOnce() throws {
        var machine = Machine(Reader())
        let decoder = Decoder()
        let asked = Locked(0)
        let registered: () -> [any StreamedBodyDecoder] = {
            asked.withLock { $0 += 1 }
            return [decoder]
        }
        for _ in 0..<2 {
            let reader = try #require(reads(machine.read(by: Self.first)))
            let decoders = machine.readerReturned(reader, atEnd: false, decoders: registered)
            #expect(decoders.count == 1 && decoders.first === decoder)
        }
        #expect(asked.current == 1, "the plugins are asked once")
        let reader = try #require(reads(machine.read(by: Self.first)))
        #expect(machine.readerReturned(reader, atEnd: true, decoders: registered).isEmpty, "the end has no chunk to decode")
        #expect(machine.takeTail(registered).first === decoder)
        #expect(asked.current == 1)
    }

    /// Copies of one iterator reading at once: the second read, while the
    /// first is on its way, gets nothing (and does not end the body) instead
    /// of waiting beside it on the transport's stream, where one of the two
    /// would wait for good.
    @Test func aReadWhileAnotherIsOnItsWayGetsNothing() throws {
        var machine = Machine(Reader())
        var reader = try #require(reads(machine.read(by: Self.first)))
        let second = machine.read(by: Self.first)
        guard case .busy = second else { Issue.record("expected the second read to get nothing, got \(second)"); return }
        #expect(machine.dropping(Self.first), "the owner's iterator, dropped, stops the body")
        #expect(machine.openReader == Reader(), "the read on its way can still be stopped")
        reader.received = 3
        machine.readerReturned(reader, atEnd: false, decoders: Self.none)
        let next = machine.read(by: Self.first)
        #expect(reads(next) == Reader(received: 3), "once the first read is back, reading goes on")
    }

    /// The first iterator to read owns the body: another iterator's reads
    /// get nothing, and dropping it leaves the body to the owner. Before any
    /// read, any iterator dropped stops the body.
    @Test func theFirstIteratorToReadOwnsTheBody() throws {
        var machine = Machine(Reader())
        #expect(machine.dropping(Self.second), "an iterator dropped before anyone read stops the body")
        var reader = try #require(reads(machine.read(by: Self.first)))
        reader.received = 2
        machine.readerReturned(reader, atEnd: false, decoders: Self.none)
        let other = machine.read(by: Self.second)
        guard case .busy = other else { Issue.record("expected another iterator's read refused, got \(other)"); return }
        #expect(!machine.dropping(Self.second))
        #expect(machine.dropping(Self.first))
        let owners = machine.read(by: Self.first)
        #expect(reads(owners) == Reader(received: 2), "the owner reads on")
        machine.readerReturned(Reader(received: 2), atEnd: true, decoders: Self.none)
        _ = machine.takeTail { [] }
        let afterTheOwner = machine.read(by: Self.second)
        #expect(ends(afterTheOwner), "once the owner is done, another iterator gets the end")
    }

    @Test func aReaderBackFromABodyStoppedMeanwhileLeavesItEnded() throws {
        var machine = Machine(Reader())
        var reader = try #require(reads(machine.read(by: Self.first)))
        let finishing = machine.finish(.cancelled, elapsed: 1)
        #expect(finishing?.outcome == .cancelled)
        reader.received = 7
        machine.readerReturned(reader, atEnd: true, decoders: Self.none)
        #expect(machine.openReader == nil)
        let tail = machine.takeTail { [Decoder()] }
        #expect(tail.isEmpty, "a body stopped while a read was on its way gives no tail")
        let readAfterStop = machine.read(by: Self.first)
        #expect(ends(readAfterStop))
    }

    @Test func aStoppedOrFailedBodyGivesNoTail() throws {
        var stopped = Machine(Reader())
        _ = stopped.read(by: Self.first)
        #expect(stopped.openReader == Reader(), "stopping closes the body being read")
        let finishing = stopped.finish(.cancelled, elapsed: 1)
        let summary = try #require(finishing)
        #expect(summary.outcome == .cancelled)
        let tail = stopped.takeTail { [Decoder()] }
        #expect(tail.isEmpty, "bytes that never all arrived are not decoded to the end")
        let readAfterStop = stopped.read(by: Self.first)
        #expect(ends(readAfterStop))

        var failed = Machine(Reader())
        let read = failed.read(by: Self.first)
        var reader = try #require(reads(read))
        reader.received = 100
        failed.readerReturned(reader, atEnd: false, decoders: Self.none)
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
