@testable import Courier
import Foundation
import Testing

/// The transitions of a streamed body's state, one by one, with a number for
/// the waiting reader: no task, no lock, no timing.
@Suite struct ResponseBodyStateMachineTests {
    typealias Machine = ResponseBodyStateMachine<Int>

    private static func chunk(_ count: Int, byte: UInt8 = 1) -> Machine.Chunk {
        Machine.Chunk(data: Data(repeating: byte, count: count), whenConsumed: nil)
    }

    private static func data(of action: Machine.ReadAction) -> Data? {
        if case .chunk(let chunk) = action { return chunk.data }
        return nil
    }

    /// The reader is woken, not handed the chunk: it takes the chunk from
    /// the queue once it runs, and a chunk larger than the read-ahead does
    /// not hold the writer, since the reader takes it at once.
    @Test func aReaderThatFindsNothingWaitsAndTheNextChunkWakesIt() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        guard case .wait = machine.next(waiting: 7) else { Issue.record("expected wait"); return }
        #expect(machine.readerIsWaiting)
        guard case .deliver(let reader) = machine.yield(Self.chunk(200)) else { Issue.record("expected deliver"); return }
        #expect(reader == 7)
        #expect(!machine.readerIsWaiting)
        guard case .chunk(let chunk) = machine.next(waiting: nil) else { Issue.record("expected the chunk queued for the reader"); return }
        #expect(chunk.data.count == 200)
        #expect(chunk.whenConsumed == nil, "its writer went on")
    }

    /// The read-ahead charges each chunk its bytes and its overhead.
    @Test func theWriterGoesOnWithinTheReadAheadAndIsHeldByTheChunkThatPassesIt() {
        var machine = Machine(readAheadLimit: 100 + 2 * Machine.chunkOverhead, maximumUnreadBytes: nil)
        guard case .goOn = machine.yield(Self.chunk(60)) else { Issue.record("expected goOn"); return }
        guard case .goOn = machine.yield(Self.chunk(40)) else { Issue.record("expected goOn at the limit"); return }
        guard case .hold = machine.yield(Self.chunk(1)) else { Issue.record("expected hold past the limit"); return }
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 60)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 40)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 1)
        guard case .wait = machine.next(waiting: nil) else { Issue.record("expected wait when empty"); return }
    }

    @Test func onlyTheHeldChunkKeepsItsCallback() {
        var machine = Machine(readAheadLimit: 10 + Machine.chunkOverhead, maximumUnreadBytes: nil)
        _ = machine.yield(.init(data: Data(count: 10), whenConsumed: {}))
        _ = machine.yield(.init(data: Data(count: 1), whenConsumed: {}))
        guard case .chunk(let first) = machine.next(waiting: nil), case .chunk(let second) = machine.next(waiting: nil) else {
            Issue.record("expected two chunks")
            return
        }
        #expect(first.whenConsumed == nil, "its writer went on when it was queued")
        #expect(second.whenConsumed != nil, "its writer waits for the reader")
    }

    /// A writer whose way to wait costs something (a promise) makes it only
    /// for the chunk that holds it: not for one handed to a waiting reader,
    /// nor for one queued within the read-ahead.
    @Test func aWaiterIsMadeOnlyForTheChunkThatHoldsTheWriter() {
        var machine = Machine(readAheadLimit: 10 + Machine.chunkOverhead, maximumUnreadBytes: nil)
        var made = 0
        let waiter = { () -> (@Sendable () -> Void)? in
            made += 1
            return {}
        }
        _ = machine.next(waiting: 7)
        guard case .deliver = machine.yield(Data(count: 4), whenHeld: waiter) else { Issue.record("expected deliver"); return }
        _ = machine.next(waiting: nil)  // the woken reader takes it
        guard case .goOn = machine.yield(Data(count: 10), whenHeld: waiter) else { Issue.record("expected goOn"); return }
        #expect(made == 0, "the writer went on at once")
        guard case .hold = machine.yield(Data(count: 1), whenHeld: waiter) else { Issue.record("expected hold"); return }
        #expect(made == 1)
        _ = machine.next(waiting: nil)
        guard case .chunk(let held) = machine.next(waiting: nil) else { Issue.record("expected the held chunk"); return }
        #expect(held.whenConsumed != nil, "the held chunk keeps the waiter it made")
    }

    @Test func afterTheEndTheUnreadChunksAreReadThenTheEndOrTheFailure() {
        for failure in [nil, NetworkError.cancelled] {
            var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
            _ = machine.yield(Self.chunk(5))
            #expect(machine.finish(failure: failure) == nil, "no reader waited")
            #expect(machine.finish(failure: .cancelled) == nil, "the first end wins")
            guard case .refused = machine.yield(Self.chunk(5)) else { Issue.record("a chunk after the end is dropped"); return }
            #expect(Self.data(of: machine.next(waiting: nil))?.count == 5)
            switch (machine.next(waiting: 1), failure) {
            case (.end, nil), (.fail(.cancelled), .some): break
            case (let action, _): Issue.record("expected the end, got \(action)")
            }
        }
    }

    @Test func theEndResumesAWaitingReader() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = machine.next(waiting: 3)
        #expect(machine.finish(failure: nil) == 3)
        #expect(!machine.readerIsWaiting)
        guard case .end = machine.next(waiting: nil) else { Issue.record("expected the end"); return }
    }

    @Test func stoppingDropsTheUnreadChunksAndEndsCancelled() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = machine.yield(Self.chunk(5))
        _ = machine.yield(Self.chunk(6))
        let (dropped, reader) = machine.stop()
        #expect(dropped.map(\.data.count) == [5, 6])
        #expect(reader == nil)
        guard case .fail(.cancelled) = machine.next(waiting: nil) else { Issue.record("expected cancelled"); return }
        guard case .refused = machine.yield(Self.chunk(1)) else { Issue.record("expected the chunk refused, the writer going on"); return }
    }

    @Test func stoppingHandsBackTheWaitingReader() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = machine.next(waiting: 9)
        #expect(machine.stop().reader == 9)
    }

    /// A body whose writer had finished, stopped with chunks still unread
    /// (a deadline while the reader works through a queue), ends cancelled:
    /// keeping its clean end handed the reader a body cut short as whole.
    @Test func stoppingAnEndedBodyWithUnreadChunksEndsItCancelled() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = machine.yield(Self.chunk(5))
        _ = machine.finish(failure: nil)
        #expect(machine.stop().dropped.count == 1)
        guard case .fail(.cancelled) = machine.next(waiting: nil) else { Issue.record("expected cancelled, not a clean end"); return }
    }

    @Test func stoppingAnEndedBodyWithNothingUnreadKeepsHowItEnded() {
        var whole = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = whole.finish(failure: nil)
        #expect(whole.stop().dropped.isEmpty)
        guard case .end = whole.next(waiting: nil) else { Issue.record("expected the clean end"); return }

        var failed = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        _ = failed.yield(Self.chunk(5))
        _ = failed.finish(failure: .connectionLost(URLError(.networkConnectionLost)))
        _ = failed.stop()
        guard case .fail(.connectionLost) = failed.next(waiting: nil) else { Issue.record("expected the failure it ended with"); return }
    }

    /// Only one reader waits: a second, which could never be woken beside the
    /// first, is refused at once, and the first still gets the next chunk.
    @Test func aSecondReaderThatWouldWaitIsRefused() {
        var machine = Machine(readAheadLimit: 100, maximumUnreadBytes: nil)
        guard case .wait = machine.next(waiting: 1) else { Issue.record("expected the first reader to wait"); return }
        guard case .fail(.transport(let error)) = machine.next(waiting: 2), error is ConcurrentBodyRead else {
            Issue.record("expected the second reader refused")
            return
        }
        guard case .deliver(let reader) = machine.yield(Self.chunk(3)) else { Issue.record("expected deliver"); return }
        #expect(reader == 1)
    }

    /// A server that sends one-byte chunks to a reader that lags holds its
    /// writer after as many chunks as the read-ahead has room for with
    /// their overhead, not after as many bytes.
    @Test func tinyChunksHoldTheWriterByTheirOverheadNotTheirBytes() {
        let limit = ResponseBody.readAheadLimit
        var machine = Machine(readAheadLimit: limit, maximumUnreadBytes: nil)
        var queued = 0
        while case .goOn = machine.yield(Self.chunk(1)) {
            queued += 1
            if queued > limit { break }
        }
        #expect(queued == limit / (1 + Machine.chunkOverhead), "2,032 records, not \(limit)")
    }

    @Test func aWriterThatCannotWaitFailsTheBodyPastItsUnreadBound() {
        let bound = 10 + 2 * Machine.chunkOverhead
        var machine = Machine(readAheadLimit: 4, maximumUnreadBytes: bound)
        _ = machine.yield(Self.chunk(6))
        _ = machine.yield(Self.chunk(4))  // ten bytes in two chunks unread: at the bound
        guard case .overflow(let dropped, let failure, nil) = machine.yield(Self.chunk(1)) else { Issue.record("expected overflow"); return }
        #expect(dropped.map(\.data.count) == [6, 4])
        #expect(failure == ResponseTooLarge(limit: .readAhead, bytes: Int64(bound)))
        guard case .fail(.responseTooLarge(let limit)) = machine.next(waiting: nil) else { Issue.record("expected the limit"); return }
        #expect(limit == ResponseTooLarge(limit: .readAhead, bytes: Int64(bound)))
    }

    /// A server that sends one-byte chunks to a reader that lags: each chunk
    /// is charged its record's cost too, so the bound holds a few hundred
    /// of them, not 64 Ki records for 64 KiB.
    @Test func eachUnreadChunkIsChargedItsOverheadAgainstTheBound() {
        var machine = Machine(readAheadLimit: 4, maximumUnreadBytes: 64 << 10)
        var queued = 0
        while queued <= 64 << 10 {
            if case .overflow = machine.yield(Self.chunk(1)) { break }
            queued += 1
        }
        #expect(queued == (64 << 10) / (1 + Machine.chunkOverhead))
    }

    // MARK: - A wake deferred to the end of a client's read

    /// A client that hands over the parts of one read together wakes its
    /// reader once: the parts queue while it waits, and ``wake()`` hands it
    /// the oldest; the reader takes the rest without waiting.
    @Test func deferredChunksQueueForAWaitingReaderUntilTheWake() {
        var machine = Machine(readAheadLimit: 1000, maximumUnreadBytes: nil)
        guard case .wait = machine.next(waiting: 7) else { Issue.record("expected wait"); return }
        guard case .goOn = machine.yield(Self.chunk(10), defersWake: true) else { Issue.record("expected goOn"); return }
        guard case .goOn = machine.yield(Self.chunk(20), defersWake: true) else { Issue.record("expected goOn"); return }
        #expect(machine.readerIsWaiting, "the reader sleeps on until the wake")
        #expect(machine.wake() == 7)
        #expect(!machine.readerIsWaiting)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 10, "the oldest chunk first")
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 20)
        #expect(machine.wake() == nil, "a second wake finds no reader")
    }

    @Test func aWakeWithNothingQueuedOrNoReaderDoesNothing() {
        var machine = Machine(readAheadLimit: 1000, maximumUnreadBytes: nil)
        #expect(machine.wake() == nil, "no reader, nothing queued")
        _ = machine.yield(Self.chunk(5), defersWake: true)
        #expect(machine.wake() == nil, "a chunk but no reader: it waits to be read")
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 5)
        _ = machine.next(waiting: 4)
        #expect(machine.wake() == nil, "a reader but nothing queued: it waits on")
        #expect(machine.readerIsWaiting)
    }

    /// The read-ahead still holds the writer while a deferred wake is due.
    @Test func deferredChunksStillHoldTheWriterPastTheReadAhead() {
        var machine = Machine(readAheadLimit: 10 + Machine.chunkOverhead, maximumUnreadBytes: nil)
        _ = machine.next(waiting: 1)
        guard case .goOn = machine.yield(Self.chunk(10), defersWake: true) else { Issue.record("expected goOn"); return }
        guard case .hold = machine.yield(Data(count: 1), defersWake: true, whenHeld: { {} }) else {
            Issue.record("expected hold")
            return
        }
        #expect(machine.wake() == 1)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 10)
        guard case .chunk(let held) = machine.next(waiting: nil) else { Issue.record("expected the held chunk"); return }
        #expect(held.whenConsumed != nil)
    }

    /// A writer that wakes at once, after one that deferred, leaves the
    /// reader for ``wake()`` too (the stream wakes it in the same step), so
    /// chunks keep their order.
    @Test func aChunkThatWakesAtOnceAfterDeferredOnesKeepsTheOrder() {
        var machine = Machine(readAheadLimit: 1000, maximumUnreadBytes: nil)
        _ = machine.next(waiting: 2)
        _ = machine.yield(Self.chunk(1), defersWake: true)
        guard case .goOn = machine.yield(Self.chunk(2)) else { Issue.record("expected the chunk queued behind the first"); return }
        #expect(machine.wake() == 2)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 1)
        #expect(Self.data(of: machine.next(waiting: nil))?.count == 2)
    }

    /// The end wakes a reader whose wake was deferred: it reads the queued
    /// chunks, then the end, and nothing is lost.
    @Test func theEndHandsAReaderWithADeferredWakeTheQueuedChunksFirst() {
        for failure in [nil, NetworkError.cancelled] {
            var machine = Machine(readAheadLimit: 1000, maximumUnreadBytes: nil)
            _ = machine.next(waiting: 5)
            _ = machine.yield(Self.chunk(3), defersWake: true)
            _ = machine.yield(Self.chunk(4), defersWake: true)
            #expect(machine.finish(failure: failure) == 5)
            #expect(machine.wake() == nil, "the body has ended: nothing more to wake")
            #expect(Self.data(of: machine.next(waiting: nil))?.count == 3)
            #expect(Self.data(of: machine.next(waiting: nil))?.count == 4)
            switch (machine.next(waiting: nil), failure) {
            case (.end, nil), (.fail(.cancelled), .some): break
            case (let action, _): Issue.record("expected the end, got \(action)")
            }
        }
    }

    /// Stopping drops the deferred chunks and hands back the reader, which
    /// is resumed with the cancellation.
    @Test func stoppingWithADeferredWakeDropsTheChunksAndHandsBackTheReader() {
        var machine = Machine(readAheadLimit: 1000, maximumUnreadBytes: nil)
        _ = machine.next(waiting: 6)
        _ = machine.yield(Self.chunk(3), defersWake: true)
        let (dropped, reader) = machine.stop()
        #expect(dropped.map(\.data.count) == [3])
        #expect(reader == 6)
        #expect(machine.wake() == nil)
    }

    /// A writer that cannot wait and overflows while a deferred wake is due
    /// hands back the waiting reader, so it is failed, not left asleep.
    @Test func anOverflowWithADeferredWakeHandsBackTheReader() {
        var machine = Machine(readAheadLimit: 4, maximumUnreadBytes: 10 + Machine.chunkOverhead)
        _ = machine.next(waiting: 8)
        _ = machine.yield(Self.chunk(10), defersWake: true)
        guard case .overflow(let dropped, _, let reader) = machine.yield(Self.chunk(1), defersWake: true) else {
            Issue.record("expected overflow")
            return
        }
        #expect(dropped.map(\.data.count) == [10])
        #expect(reader == 8)
    }
}
