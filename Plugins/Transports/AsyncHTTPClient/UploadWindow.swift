import AsyncHTTPClient
import Courier
import NIOCore

/// How a streamed request body reaches AsyncHTTPClient: one write at a time
/// on the request's event loop, the chunks that arrive while it is there
/// joined into the next.
///
/// A write made from outside the request's event loop costs AsyncHTTPClient a
/// hop and about a dozen allocations of futures before the part is written,
/// and each part written costs as many again; a producer faster than the
/// connection paid that for every chunk it yielded (a 1 GB upload of 64 KiB
/// chunks ran at 0.42 of AsyncHTTPClient's own body stream). Here a write is
/// handed to the event loop only when the one before has been taken (the
/// connection accepted it, or AsyncHTTPClient's back-pressure released it);
/// until then chunks are joined, up to ``joinLimit`` bytes, after which the
/// producer waits. A producer slower than the connection has each chunk
/// written as it comes, so joining never delays a byte.
final class UploadWindow: Sendable {
    /// The most bytes joined while a write is on the event loop before the
    /// producer waits for it: with the one write in flight, what a streamed
    /// body holds in memory (the four 64 KiB chunks of the window before).
    static let joinLimit = 1 << 20

    private let state = Locked(UploadWindowStateMachine<CheckedContinuation<Void, any Error>>())
    private let loop: any EventLoop
    private let writer: HTTPClient.Body.StreamWriter

    init(loop: any EventLoop, writer: HTTPClient.Body.StreamWriter) {
        self.loop = loop
        self.writer = writer
    }

    /// Sends the chunks `reader` yields, joined while a write is in flight,
    /// and returns once the last has been taken.
    /// - Throws: what the reader threw, or the first write's failure.
    func send(_ reader: inout RequestBodyStream.Reader) async throws {
        var joined: ByteBuffer?
        while let chunk = try await reader.next() {
            guard !chunk.isEmpty else { continue }
            if joined == nil {
                joined = ByteBuffer(bytes: chunk)
            } else {
                joined?.writeBytes(chunk)
            }
            guard let buffer = joined else { continue }
            switch try state.withLock({ try $0.check() }) {
            case .idle:
                break
            case .busy:
                guard buffer.readableBytes >= Self.joinLimit else {
                    // Room for the chunks to come, once, instead of a
                    // reallocation as each is joined.
                    if buffer.capacity < Self.joinLimit { joined?.reserveCapacity(Self.joinLimit) }
                    continue
                }
                try await idle()
            }
            joined = nil
            write(buffer)
        }
        if let buffer = joined {
            try await idle()
            write(buffer)
        }
        try await idle()
    }

    private func write(_ buffer: ByteBuffer) {
        state.withLock { $0.submitted() }
        loop.execute { [writer, state] in
            // On the request's event loop AsyncHTTPClient writes at once; the
            // future completes when the connection has taken the part.
            writer.write(.byteBuffer(buffer)).whenComplete { result in
                state.withLock { $0.completed(result) }?.resume(with: result)
            }
        }
    }

    private func idle() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            switch state.withLock({ $0.wait(continuation) }) {
            case .suspend: break
            case .resume: continuation.resume()
            case .fail(let error): continuation.resume(throwing: error)
            }
        }
    }
}

/// The write window of an upload: whether a write is on its way, the first
/// failure of one, and the producer waiting for it. `Waiter` resumes the
/// producer (a continuation); tests use plain values.
struct UploadWindowStateMachine<Waiter> {
    private(set) var writing = false
    private var failure: (any Error)?
    private var waiter: Waiter?

    enum Check {
        /// Nothing in flight: write now.
        case idle
        /// A write is in flight: join, or wait past the limit.
        case busy
    }

    /// Where the window stands.
    /// - Throws: the failure of a write, which ends the upload.
    func check() throws -> Check {
        if let failure { throw failure }
        return writing ? .busy : .idle
    }

    /// A write was handed to the event loop.
    mutating func submitted() {
        precondition(!writing, "one write at a time")
        writing = true
    }

    enum WaitAction {
        case suspend
        case resume
        case fail(any Error)
    }

    /// The producer waits for the write in flight.
    mutating func wait(_ waiter: Waiter) -> WaitAction {
        if let failure { return .fail(failure) }
        guard writing else { return .resume }
        precondition(self.waiter == nil, "one producer")
        self.waiter = waiter
        return .suspend
    }

    /// The write in flight ended: the producer to resume with its result,
    /// if it waits.
    mutating func completed(_ result: Result<Void, any Error>) -> Waiter? {
        writing = false
        if case .failure(let error) = result, failure == nil { failure = error }
        defer { waiter = nil }
        return waiter
    }
}

extension UploadWindowStateMachine: Sendable where Waiter: Sendable {}
