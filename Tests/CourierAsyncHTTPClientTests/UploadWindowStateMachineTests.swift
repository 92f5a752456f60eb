@testable import CourierAsyncHTTPClient
import Foundation
import Testing

/// Bytes as the tests' chunks: joined by appending.
struct Bytes: JoinableChunk, Equatable, ExpressibleByArrayLiteral {
    var bytes: [UInt8]
    init(chunk: Data) { bytes = Array(chunk) }
    init(arrayLiteral elements: UInt8...) { bytes = elements }
    var byteCount: Int { bytes.count }
    mutating func join(_ chunk: Data) { bytes.append(contentsOf: chunk) }
}

/// The transitions of an upload's write window, with byte arrays for its
/// buffers and strings for the waiting producer: one write on its way, the
/// chunks that come meanwhile joined and handed on by the write that ends,
/// the producer held past the limit, and the first failure ending the upload.
@Suite struct UploadWindowStateMachineTests {
    typealias Machine = UploadWindowStateMachine<Bytes, String>

    struct Refused: Error, Equatable {}

    private static func chunk(_ bytes: UInt8...) -> Data { Data(bytes) }

    @Test func aChunkWithNothingOnItsWayIsWrittenAtOnce() throws {
        var machine = Machine(joinLimit: 10)
        guard case .write(let buffer) = try machine.offer(Self.chunk(1, 2)) else {
            Issue.record("the first chunk is written at once")
            return
        }
        #expect(buffer == [1, 2])
        let (next, resumed) = machine.completed(.success(()))
        #expect(next == nil && resumed == nil)
        guard case .write = try machine.offer(Self.chunk(3)) else {
            Issue.record("with the write taken, the next chunk is written at once too")
            return
        }
    }

    /// The bytes joined while a write was on its way are handed on by that
    /// write's end, not left for the producer's next chunk: a producer that
    /// pauses after them still has them sent.
    @Test func theWriteThatEndsHandsOnWhatJoinedMeanwhile() throws {
        var machine = Machine(joinLimit: 10)
        _ = try machine.offer(Self.chunk(1))
        guard case .joined = try machine.offer(Self.chunk(2)), case .joined = try machine.offer(Self.chunk(3)) else {
            Issue.record("chunks join while a write is on its way")
            return
        }
        let (next, _) = machine.completed(.success(()))
        #expect(next == [2, 3], "joined in order")
        #expect(machine.writing, "the joined bytes are on their way now")
        let (after, _) = machine.completed(.success(()))
        #expect(after == nil)
        #expect(!machine.writing)
    }

    @Test func aProducerPastTheLimitWaitsForRoomAndTheEndWaitsForTheLastWrite() throws {
        var machine = Machine(joinLimit: 4)
        _ = try machine.offer(Self.chunk(0))
        guard case .full = try machine.offer(Self.chunk(1, 2, 3, 4)) else {
            Issue.record("four bytes joined reach the limit")
            return
        }
        guard case .suspend = machine.wait("producer", untilDrained: false) else {
            Issue.record("a full window holds the producer")
            return
        }
        let (next, resumed) = machine.completed(.success(()))
        #expect(next == [1, 2, 3, 4])
        #expect(resumed == "producer", "room again once the joined bytes are on their way")
        guard case .suspend = machine.wait("end", untilDrained: true) else {
            Issue.record("the end waits for the write on its way")
            return
        }
        let (last, resumedAtTheEnd) = machine.completed(.success(()))
        #expect(last == nil)
        #expect(resumedAtTheEnd == "end")
        guard case .resume = machine.wait("again", untilDrained: true) else {
            Issue.record("with nothing on its way, the end is there at once")
            return
        }
    }

    /// A join limit of 0 (`uploadJoinLimit` set so): every chunk that comes
    /// while a write is on its way holds the producer, so at most that write
    /// and one chunk wait.
    @Test func aJoinLimitOfZeroHoldsTheProducerAtEveryChunkThatMustWait() throws {
        var machine = Machine(joinLimit: 0)
        guard case .write = try machine.offer(Self.chunk(1)) else {
            Issue.record("with nothing on its way, a chunk is written at once")
            return
        }
        guard case .full = try machine.offer(Self.chunk(2)) else {
            Issue.record("the chunk that must wait fills the window")
            return
        }
        guard case .suspend = machine.wait("producer", untilDrained: false) else {
            Issue.record("the producer waits")
            return
        }
        let (next, resumed) = machine.completed(.success(()))
        #expect(next == [2])
        #expect(resumed == "producer")
    }

    @Test func theFirstFailedWriteEndsTheUploadAndDropsWhatWaited() throws {
        var machine = Machine(joinLimit: 4)
        _ = try machine.offer(Self.chunk(0))
        _ = try machine.offer(Self.chunk(1, 2, 3, 4))
        guard case .suspend = machine.wait("producer", untilDrained: false) else {
            Issue.record("a full window holds the producer")
            return
        }
        let (next, resumed) = machine.completed(.failure(Refused()))
        #expect(next == nil, "nothing more is written after a failure")
        #expect(resumed == "producer", "resumed, with the failure")
        #expect(throws: Refused.self, "the next chunk finds the upload failed") { try machine.offer(Self.chunk(5)) }
        guard case .fail(let error) = machine.wait("end", untilDrained: true) else {
            Issue.record("a wait after a failure fails at once")
            return
        }
        #expect(error is Refused)
    }

    /// A producer whose task is cancelled while it waits is handed back, to
    /// be resumed with the cancellation: AsyncHTTPClient may never complete a
    /// write it held back for a request that failed meanwhile.
    @Test func aCancelledProducerIsHandedBack() throws {
        var machine = Machine(joinLimit: 4)
        _ = try machine.offer(Self.chunk(0))
        #expect(machine.cancel() == nil, "nobody waits yet")
        guard case .suspend = machine.wait("end", untilDrained: true) else {
            Issue.record("the end waits for the write on its way")
            return
        }
        #expect(machine.cancel() == "end")
        #expect(machine.completed(.success(())).resume == nil, "resumed once")
    }
}
