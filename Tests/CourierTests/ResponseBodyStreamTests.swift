@testable import Courier
import Foundation
import Testing

/// A streamed body between a transport and the transfer stage: the client
/// reads ahead up to `ResponseBody.readAheadLimit` unread bytes and then
/// waits for the reader, every byte arrives in order, and a reader that stops
/// leaves no client waiting.
@Suite struct ResponseBodyStreamTests {
    /// Counts the `whenConsumed` calls of each chunk.
    final class Consumed: Sendable {
        private let calls = Locked<[Int: Int]>([:])

        func callback(for chunk: Int) -> @Sendable () -> Void {
            { self.calls.withLock { $0[chunk, default: 0] += 1 } }
        }

        func count(_ chunk: Int) -> Int {
            calls.withLock { $0[chunk, default: 0] }
        }
    }

    private static let chunkSize = 64 << 10
    /// An unread bound that holds three chunks, each charged its bookkeeping.
    private static let threeChunks = 3 * (chunkSize + ResponseBodyStateMachine<Int>.chunkOverhead)

    private static func chunk(_ index: Int, size: Int = chunkSize) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: index), count: size)
    }

    private static func stream(of body: ResponseBody) throws -> ResponseBodyStream {
        guard case .stream(let stream) = body.storage else { throw NetworkError.cancelled }
        return stream
    }

    /// Yields chunks up to the limit and one more, none of them read;
    /// returns the index of that one, whose client waits.
    private static func yieldPastTheLimit(_ writer: ResponseBodyWriter, _ consumed: Consumed) -> Int {
        let withinLimit = ResponseBody.readAheadLimit / (chunkSize + ResponseBodyStateMachine<Int>.chunkOverhead)
        for index in 0...withinLimit {
            writer.yield(chunk(index), whenConsumed: consumed.callback(for: index))
        }
        return withinLimit
    }

    /// A client that cannot wait (URLSession) bounds what waits unread: the
    /// chunk that would pass the bound fails the body and stops the transfer
    /// at once (before the reader reads again), what was unread is dropped,
    /// and every client callback has run.
    @Test func aClientThatCannotWaitFailsTheBodyPastItsUnreadBound() async throws {
        let (body, writer) = ResponseBody.makeStream(maximumUnreadBytes: Self.threeChunks)
        let stream = try Self.stream(of: body)
        let control = TransferControl()
        let aborted = Locked(0)
        control.onAbort { aborted.withLock { $0 += 1 } }
        control.reads(stream)
        let consumed = Consumed()
        for index in 0..<3 {
            writer.yield(Self.chunk(index), whenConsumed: consumed.callback(for: index))
        }
        #expect(try await stream.next() == Self.chunk(0))  // two unread now
        writer.yield(Self.chunk(3), whenConsumed: consumed.callback(for: 3))  // three: at the bound
        #expect(aborted.current == 0)
        writer.yield(Self.chunk(4), whenConsumed: consumed.callback(for: 4))  // past it
        #expect(aborted.current == 1, "the transfer stops when the bound is passed")
        guard case .tooLarge(let reason) = control.reason else { Issue.record("expected the limit as the reason, got \(String(describing: control.reason))"); return }
        #expect(reason == ResponseTooLarge(limit: .readAhead, bytes: Int64(Self.threeChunks)))
        writer.yield(Self.chunk(5), whenConsumed: consumed.callback(for: 5))  // after the end
        #expect(aborted.current == 1)
        do {
            let next = try await stream.next()
            Issue.record("expected the read-ahead failure, read \(next?.count ?? 0) bytes")
        } catch {
            guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
            #expect(limit == ResponseTooLarge(limit: .readAhead, bytes: Int64(Self.threeChunks)))
        }
        for index in 0...5 {
            #expect(consumed.count(index) == 1, "chunk \(index)'s client was let go once")
        }
    }

    @Test func theClientGoesOnAtOnceUntilTheChunksUnreadPassTheLimitThenWaitsForTheReader() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let consumed = Consumed()
        let withinLimit = Self.yieldPastTheLimit(writer, consumed)
        // Nobody has read yet: the chunks within the limit let the client go
        // on; the one that passes it holds the client.
        for index in 0..<withinLimit {
            #expect(consumed.count(index) == 1, "chunk \(index) is within the limit")
        }
        #expect(consumed.count(withinLimit) == 0)

        for index in 0..<withinLimit {
            #expect(try await stream.next() == Self.chunk(index))
            #expect(consumed.count(withinLimit) == 0, "the client waits until the reader takes its chunk")
        }
        #expect(try await stream.next() == Self.chunk(withinLimit))
        #expect(consumed.count(withinLimit) == 1)
        for index in 0..<withinLimit {
            #expect(consumed.count(index) == 1, "chunk \(index)'s client was told once")
        }
    }

    @Test func aReaderWaitingForAChunkLetsItsClientGoOnAsItArrives() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let consumed = Consumed()
        async let read = stream.next()
        while !stream.readerIsWaiting { await Task.yield() }
        writer.yield(Self.chunk(7, size: ResponseBody.readAheadLimit + 1), whenConsumed: consumed.callback(for: 7))
        #expect(try await read == Self.chunk(7, size: ResponseBody.readAheadLimit + 1))
        #expect(consumed.count(7) == 1)
        writer.finish()
        #expect(try await stream.next() == nil)
    }

    /// A client that hands over the parts of one read together
    /// (`wakesReader: false`) leaves a waiting reader asleep until it wakes
    /// it once; the reader then takes every part in order, the rest without
    /// waiting.
    @Test func aReaderWokenOnceAfterDeferredChunksReadsThemAllInOrder() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        async let first = stream.next()
        while !stream.readerIsWaiting { await Task.yield() }
        for index in 1...3 {
            #expect(writer.yield(Self.chunk(index, size: 8), wakesReader: false) { {} }, "within the read-ahead")
        }
        #expect(stream.readerIsWaiting, "no part wakes the reader")
        writer.wakeReader()
        #expect(try await first == Self.chunk(1, size: 8))
        #expect(try await stream.next() == Self.chunk(2, size: 8))
        #expect(try await stream.next() == Self.chunk(3, size: 8))
        writer.finish()
        #expect(try await stream.next() == nil)
    }

    /// A body that ends before the deferred wake hands the waiting reader
    /// its queued chunks first: nothing is lost, and the reader is not left
    /// waiting for a wake that never comes.
    @Test func theEndWakesAReaderWhoseWakeWasDeferred() async throws {
        for fails in [false, true] {
            let (body, writer) = ResponseBody.makeStream()
            let stream = try Self.stream(of: body)
            async let first = stream.next()
            while !stream.readerIsWaiting { await Task.yield() }
            _ = writer.yield(Self.chunk(1, size: 8), wakesReader: false) { {} }
            _ = writer.yield(Self.chunk(2, size: 8), wakesReader: false) { {} }
            if fails { writer.fail(URLError(.networkConnectionLost)) } else { writer.finish() }
            #expect(try await first == Self.chunk(1, size: 8))
            #expect(try await stream.next() == Self.chunk(2, size: 8))
            do {
                let end = try await stream.next()
                #expect(!fails && end == nil, "a body that failed ends with its failure")
            } catch {
                guard case .connectionLost = error else { Issue.record("expected the lost connection, got \(error)"); continue }
                #expect(fails)
            }
        }
    }

    /// Once the transfer stage reads a streamed body, the body keeps the
    /// transfer's idle clock: it runs only while the reader waits for a
    /// chunk, from when it began to wait, and stops when a chunk arrives;
    /// a body that has ended stops it for good. (A server that stalls while
    /// the reader waits is timed out; a reader busy elsewhere is not.)
    @Test func aWatchedBodyRunsTheIdleClockOnlyWhileItsReaderWaits() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let control = TransferControl(bodyLimit: nil, progress: nil, readsInChunks: true)
        control.didReceiveHead()
        #expect(control.activity.waitsOnServer == false, "after the head, nobody waits until the reader asks")
        let attached = DispatchTime.now().uptimeNanoseconds
        control.reads(stream)
        #expect(control.activity.waitsOnServer == false)
        #expect(control.activity.last >= attached)

        async let read = stream.next()
        while !stream.readerIsWaiting { await Task.yield() }
        let waiting = control.activity
        #expect(waiting.waitsOnServer, "the reader waits on the server")
        #expect(waiting.last >= attached, "from when it began to wait")

        writer.yield(Self.chunk(1))
        let arrived = control.activity
        #expect(arrived.waitsOnServer == false, "a chunk arrived: the clock stops before the reader runs")
        #expect(arrived.last >= waiting.last)
        #expect(try await read == Self.chunk(1))

        writer.finish()
        #expect(try await stream.next() == nil)
        #expect(control.activity.waitsOnServer == false, "an ended body waits on nobody")
    }

    @Test func everyByteArrivesInOrderAndTheUnreadBytesStayWithinTheLimitAndAChunk() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let sizes = (0..<200).map { 1 + ($0 * 7_919) % (48 << 10) }
        let largest = sizes.max() ?? 0
        let expected = sizes.indices.reduce(into: Data()) { $0.append(Self.chunk($1, size: sizes[$1])) }
        let yielded = Locked(0)
        let read = Locked(0)
        let mostUnread = Locked(0)

        // A client that sends each chunk only after the last one's
        // `whenConsumed` ran, as AsyncHTTPClient's back-pressure does.
        let client = Task {
            for (index, size) in sizes.enumerated() {
                await withCheckedContinuation { (next: CheckedContinuation<Void, Never>) in
                    let total = yielded.withLock { $0 += size; return $0 }
                    // The reader counts a chunk after taking it, so this is at
                    // most one chunk more than what is really unread.
                    let unread = total - read.current
                    mostUnread.withLock { $0 = max($0, unread) }
                    writer.yield(Self.chunk(index, size: size)) { next.resume() }
                }
            }
            writer.finish()
        }
        var received = Data()
        while let chunk = try await stream.next() {
            received.append(chunk)
            read.withLock { $0 += chunk.count }
        }
        await client.value
        #expect(received == expected)
        #expect(mostUnread.current <= ResponseBody.readAheadLimit + 2 * largest)
    }

    /// A client on a thread of its own (as an event loop is) hands over
    /// thousands of small chunks to a reader that waits for each run of
    /// them, some runs woken at once and some woken together after their
    /// last chunk: every wake finds its reader, and every byte arrives once,
    /// in order. (Under the thread sanitizer this is also the check that
    /// waking a reader hands nothing across threads outside the stream's
    /// lock.)
    @Test func aClientThreadAndAWaitingReaderHandOverEveryChunkInOrder() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let count = 3_000
        let client = Thread {
            var index = 0
            while index < count {
                // The reader reads all that is queued, then waits: each run
                // finds it waiting, so each run is a wake.
                while !stream.readerIsWaiting { sched_yield() }
                // Runs of one to three chunks; a run of more than one wakes
                // its reader once, after its last chunk.
                let run = min(1 + index % 3, count - index)
                for offset in 0..<run {
                    _ = writer.yield(Self.chunk(index + offset, size: 16), wakesReader: run == 1) { {} }
                }
                if run > 1 { writer.wakeReader() }
                index += run
            }
            writer.finish()
        }
        client.start()
        var read = 0
        while let chunk = try await stream.next() {
            #expect(chunk == Self.chunk(read, size: 16), "chunk \(read) arrives in its place")
            read += 1
        }
        #expect(read == count)
    }

    /// A reader whose task is cancelled while it waits stops waiting at
    /// once: the body stops (cancelled), and a chunk that comes after is
    /// refused, its client let go.
    @Test func aReaderWhoseTaskIsCancelledWhileItWaitsStopsTheBody() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let reader = Task { try await stream.next() }
        while !stream.readerIsWaiting { await Task.yield() }
        reader.cancel()
        do {
            let chunk = try await reader.value
            Issue.record("expected the cancellation, read \(chunk?.count ?? 0) bytes")
        } catch {
            guard case .cancelled? = error as? NetworkError else { Issue.record("expected cancelled, got \(error)"); return }
        }
        #expect(stream.hasEnded)
        let consumed = Consumed()
        writer.yield(Self.chunk(1), whenConsumed: consumed.callback(for: 1))
        #expect(consumed.count(1) == 1, "a chunk after the stop is refused and its client goes on")
    }

    @Test func aReaderThatStopsLetsTheWaitingClientGoOnAndDropsWhatFollows() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        let consumed = Consumed()
        let withinLimit = Self.yieldPastTheLimit(writer, consumed)
        #expect(consumed.count(withinLimit) == 0)
        stream.stop()
        #expect(consumed.count(withinLimit) == 1, "a stopped reader leaves no client waiting")
        writer.yield(Self.chunk(99), whenConsumed: consumed.callback(for: 99))
        #expect(consumed.count(99) == 1, "a chunk after the stop is dropped and its client told")
        await #expect(throws: NetworkError.self) { try await stream.next() }
    }

    @Test func chunksYieldedBeforeAFailureAreReadBeforeIt() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let stream = try Self.stream(of: body)
        writer.yield(Self.chunk(1, size: 10))
        writer.yield(Self.chunk(2, size: 20))
        writer.fail(URLError(.networkConnectionLost))
        #expect(try await stream.next() == Self.chunk(1, size: 10))
        #expect(try await stream.next() == Self.chunk(2, size: 20))
        await #expect {
            try await stream.next()
        } throws: { error in
            guard let error = error as? NetworkError, case .connectionLost = error else { return false }
            return true
        }
    }
}
