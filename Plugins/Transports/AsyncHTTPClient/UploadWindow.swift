import AsyncHTTPClient
import Courier
import Foundation
import NIOCore

/// How a streamed request body reaches AsyncHTTPClient: one write at a time
/// on the request's event loop, the chunks that come while it is there
/// joined into the next.
///
/// A write made from outside the request's event loop costs AsyncHTTPClient a
/// hop and about a dozen allocations of futures before the part is written,
/// and each part written costs as many again; a producer faster than the
/// connection paid that for every chunk it yielded (a 1 GB upload of 64 KiB
/// chunks ran at 0.42 of AsyncHTTPClient's own body stream).
///
/// Here a chunk is handed to the event loop at once when no write is on its
/// way there; otherwise it joins the bytes that wait, and the write that
/// ends hands them on itself, so a joined byte never waits for the producer's
/// next chunk. AsyncHTTPClient completes a write as soon as it has passed it
/// to the connection, or, while the connection is not writable, once it is
/// again: so chunks join while a write crosses to the event loop and while
/// the connection pushes back. Past the join limit
/// (`AsyncHTTPClientTransport.Configuration.uploadJoinLimit`, 1 MiB unless
/// set, chosen by measurement: see there) the producer waits.
final class UploadWindow: Sendable {
    private typealias Machine = UploadWindowStateMachine<ByteBuffer, CheckedContinuation<Void, any Error>>

    private let state: Locked<Machine>
    private let loop: any EventLoop
    private let writer: HTTPClient.Body.StreamWriter

    init(loop: any EventLoop, writer: HTTPClient.Body.StreamWriter, joinLimit: Int) {
        self.state = Locked(Machine(joinLimit: joinLimit))
        self.loop = loop
        self.writer = writer
    }

    /// Sends the chunks `reader` yields and returns once the last has been
    /// written.
    /// - Throws: what the reader threw, the first write's failure, or
    ///   `CancellationError` when the task was cancelled while it waited.
    func send(_ reader: inout RequestBodyStream.Reader) async throws {
        while let chunk = try await reader.next() {
            guard !chunk.isEmpty else { continue }
            switch try state.withLock({ try $0.offer(chunk) }) {
            case .write(let buffer):
                write(buffer)
            case .joined:
                break
            case .full:
                try await wait(untilDrained: false)
            }
        }
        try await wait(untilDrained: true)
    }

    /// Writes `buffer` on the loop; its completion writes what joined
    /// meanwhile. Always through the loop's queue, also from a completion on
    /// the loop: a future that is already complete runs its callback at
    /// once, so writing from inside one would nest a call per write. (The
    /// window lives as long as its upload's writes.)
    private func write(_ buffer: ByteBuffer) {
        loop.execute { [self] in
            writer.write(.byteBuffer(buffer)).whenComplete { result in
                let (next, waiter) = self.state.withLock { $0.completed(result) }
                if let next { self.write(next) }
                waiter?.resume(with: result)
            }
        }
    }

    /// Waits for room to join more (`untilDrained` false) or for every byte
    /// to be written; a cancelled task stops waiting at once, since
    /// AsyncHTTPClient may never complete a write it held back for a
    /// request that failed meanwhile.
    private func wait(untilDrained: Bool) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switch state.withLock({ $0.wait(continuation, untilDrained: untilDrained) }) {
                case .suspend: break
                case .resume: continuation.resume()
                case .fail(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            state.withLock { $0.cancel() }?.resume(throwing: CancellationError())
        }
    }
}

/// What an upload's bytes are to its write window: made from a chunk, joined
/// with the next (one copy of each chunk either way), counted.
protocol JoinableChunk {
    init(chunk: Data)
    var byteCount: Int { get }
    mutating func join(_ chunk: Data)
}

extension ByteBuffer: JoinableChunk {
    init(chunk: Data) {
        self.init(bytes: chunk)
    }

    var byteCount: Int { readableBytes }

    mutating func join(_ chunk: Data) {
        // The buffer grows as ByteBuffer grows, doubling: a few small chunks
        // joined hold a few small chunks' room.
        writeBytes(chunk)
    }
}

/// The write window of an upload: whether a write is on its way to the
/// connection, the bytes joined meanwhile, the first failure, and the
/// producer waiting. Its transitions return what to write and whom to
/// resume; `Buffer` is a `ByteBuffer`, and `Waiter` a continuation (tests
/// use plain values).
struct UploadWindowStateMachine<Buffer: JoinableChunk, Waiter> {
    let joinLimit: Int
    private(set) var writing = false
    private(set) var pending: Buffer?
    private var failure: (any Error)?
    private var waiter: (waiter: Waiter, untilDrained: Bool)?

    init(joinLimit: Int) {
        self.joinLimit = joinLimit
    }

    enum OfferAction {
        /// Nothing on its way: write this now.
        case write(Buffer)
        /// Joined to the bytes that wait; the write on its way hands them on.
        case joined
        /// Joined, and past the limit: wait for room.
        case full
    }

    /// The producer has a chunk.
    /// - Throws: the failure of a write, which ends the upload.
    mutating func offer(_ chunk: Data) throws -> OfferAction {
        if let failure { throw failure }
        guard writing else {
            writing = true
            return .write(Buffer(chunk: chunk))
        }
        // Taken out while it grows, so joining never copies it.
        if var joined = pending.take() {
            joined.join(chunk)
            pending = joined
        } else {
            pending = Buffer(chunk: chunk)
        }
        return (pending?.byteCount ?? 0) >= joinLimit ? .full : .joined
    }

    enum WaitAction {
        case suspend
        case resume
        case fail(any Error)
    }

    /// The producer waits for room to join more, or (`untilDrained`) for every
    /// byte to be written.
    mutating func wait(_ waiter: Waiter, untilDrained: Bool) -> WaitAction {
        if let failure { return .fail(failure) }
        let done = untilDrained ? !writing && pending == nil : pending == nil
        guard !done else { return .resume }
        precondition(self.waiter == nil, "one producer")
        self.waiter = (waiter, untilDrained)
        return .suspend
    }

    /// The write on its way ended. Returns the joined bytes to write next
    /// (the window stays busy with them), and the producer to resume with
    /// the write's result if what it waits for has come (room, or the end),
    /// or if the write failed.
    mutating func completed(_ result: Result<Void, any Error>) -> (next: Buffer?, resume: Waiter?) {
        if case .failure(let error) = result {
            if failure == nil { failure = error }
            writing = false
            pending = nil
            return (nil, waiter.take()?.waiter)
        }
        if let next = pending.take() {
            // Room again; the end is not here yet.
            if let waiting = waiter, !waiting.untilDrained {
                waiter = nil
                return (next, waiting.waiter)
            }
            return (next, nil)
        }
        writing = false
        return (nil, waiter.take()?.waiter)
    }

    /// The producer's task was cancelled: the waiter to resume with that.
    mutating func cancel() -> Waiter? {
        waiter.take()?.waiter
    }
}

extension UploadWindowStateMachine: Sendable where Buffer: Sendable, Waiter: Sendable {}
