import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body read from an `AsyncSequence` of bytes while it is sent:
/// a file being produced, a recording, an export assembled row by row.
/// Give it to ``RequestTask/uploadStream(_:)``.
///
/// ```swift
/// let rows = RequestBodyStream(export.csvLines(), length: .unknown)   // sent chunked
/// case .upload: return .uploadStream(rows)
/// ```
///
/// **How it is sent.** A transport that sends bodies as they are made
/// (``Transport/sendsStreamedBodies``; the AsyncHTTPClient transport does)
/// reads a chunk only when the connection has taken the one before, so the
/// body never sits in memory whole: with a known ``Length-swift.enum`` under
/// `Content-Length`, otherwise chunked. ``URLSessionTransport`` cannot on
/// Linux (FoundationNetworking reads a body stream on the one queue every
/// `URLSession` of the process shares, and ends the body at the first
/// moment no byte is ready), so for it the provider first reads the stream
/// into memory, or into a private temporary file past 4 MiB, and sends that
/// with its `Content-Length`.
///
/// **Sending it again.** A body that is sent as it is read can be sent again
/// only if its sequence can be read again: say so with
/// ``IterationBehavior-swift.enum/multiple``. A ``IterationBehavior-swift.enum/single``
/// stream is read once, and whatever would send it again gets the response
/// that asked for it instead: a redirect that keeps the method and body
/// (307, 308, and 301 or 302 to anything but a POST) is not followed (the
/// 3xx response is returned), the auth plugin refreshes the token on a 401
/// but returns the 401 (call again: the new token is in place), and the
/// retry plugin does not retry. A plugin of your own asks
/// ``RequestContext/isBodyReplayable``. A spooled body (on
/// ``URLSessionTransport``) can always be sent again.
public struct RequestBodyStream: Sendable {
    /// How long the body is.
    public enum Length: Sendable, Hashable {
        /// Exactly this many bytes, sent as `Content-Length`. A sequence that
        /// yields more or fewer fails the call with
        /// ``RequestBuildFailure/bodyStreamLength(expected:produced:)``.
        case known(Int64)
        /// Unknown until the sequence ends: sent with
        /// `Transfer-Encoding: chunked` where the body streams.
        case unknown
    }

    /// Whether the sequence can be read more than once.
    public enum IterationBehavior: Sendable, Hashable {
        /// Read once: a redirect, a token refresh or a retry cannot send it
        /// again.
        case single
        /// Each iteration yields the same bytes again, so it can be sent
        /// again.
        case multiple
    }

    /// The body's length, if known.
    public let length: Length
    /// Whether the sequence can be read more than once.
    public let iterationBehavior: IterationBehavior
    private let makeChunks: @Sendable () -> Chunks
    private let reads: Locked<Int>

    /// Creates a body from `sequence`, whose elements are chunks of bytes
    /// (`[UInt8]`, `ArraySlice<UInt8>`, `Data`, …).
    /// - Parameters:
    ///   - sequence: The bytes, in order. An error it throws fails the call
    ///     with ``RequestBuildFailure/unreadableBodyStream(_:)``.
    ///   - length: The number of bytes, if known.
    ///   - iterationBehavior: Whether each iteration of `sequence` yields the
    ///     same bytes again; ``IterationBehavior-swift.enum/single`` unless
    ///     you know it does.
    public init<Bytes: AsyncSequence & Sendable>(
        _ sequence: Bytes, length: Length, iterationBehavior: IterationBehavior = .single
    ) where Bytes.Element: DataProtocol {
        self.length = length
        self.iterationBehavior = iterationBehavior
        self.reads = Locked(0)
        self.makeChunks = {
            var iterator = sequence.makeAsyncIterator()
            return Chunks { () async throws -> Data? in
                guard let chunk = try await iterator.next() else { return nil }
                return chunk as? Data ?? Data(chunk)
            }
        }
    }

    /// Creates a body from chunks already in memory, which can be sent again;
    /// for tests and for bodies assembled from parts.
    public init(chunks: [Data]) {
        let length = chunks.reduce(Int64(0)) { $0 + Int64($1.count) }
        self.init(ChunkList(chunks: chunks), length: .known(length), iterationBehavior: .multiple)
    }

    /// The length if known, for `Content-Length`.
    public var knownLength: Int64? {
        if case .known(let bytes) = length { return bytes }
        return nil
    }

    /// Whether the body can be sent again now: a stream that can be read
    /// again, or a one-shot stream nobody has started reading.
    public var canBeSentAgain: Bool {
        iterationBehavior == .multiple || reads.withLock { $0 } == 0
    }

    /// Starts a reading of the body: its chunks in order, each checked
    /// against ``length``, then `nil`.
    /// - Throws: ``RequestBuildFailure/bodyStreamAlreadyRead`` for a one-shot
    ///   stream read before.
    public func makeReader() throws(NetworkError) -> Reader {
        let first = reads.withLock { count in
            count += 1
            return count == 1
        }
        guard first || iterationBehavior == .multiple else {
            throw .requestBuildFailed(RequestBuildFailure.bodyStreamAlreadyRead)
        }
        return Reader(chunks: makeChunks(), expected: knownLength)
    }

    /// One reading of a ``RequestBodyStream``. Not for sharing between tasks.
    public struct Reader {
        private let chunks: Chunks
        private let expected: Int64?
        private var produced: Int64 = 0

        fileprivate init(chunks: Chunks, expected: Int64?) {
            self.chunks = chunks
            self.expected = expected
        }

        /// The next chunk that is not empty, or `nil` at the end.
        /// - Throws: ``NetworkError/requestBuildFailed(_:)`` with
        ///   ``RequestBuildFailure/unreadableBodyStream(_:)`` when the
        ///   sequence throws, or ``RequestBuildFailure/bodyStreamLength(expected:produced:)``
        ///   when it yields more or fewer bytes than its known length;
        ///   ``NetworkError/cancelled`` when the task is cancelled.
        public mutating func next() async throws(NetworkError) -> Data? {
            while true {
                let chunk: Data?
                do {
                    chunk = try await chunks.next()
                } catch is CancellationError {
                    throw .cancelled
                } catch let error as NetworkError {
                    throw error
                } catch {
                    throw .requestBuildFailed(RequestBuildFailure.unreadableBodyStream(String(describing: error)))
                }
                guard let chunk else {
                    // Many sequences (an `AsyncStream`) end early when their
                    // task is cancelled: that is not the body's end.
                    if Task.isCancelled { throw .cancelled }
                    if let expected, produced != expected {
                        throw .requestBuildFailed(RequestBuildFailure.bodyStreamLength(expected: expected, produced: produced))
                    }
                    return nil
                }
                if chunk.isEmpty { continue }
                produced += Int64(chunk.count)
                if let expected, produced > expected {
                    throw .requestBuildFailed(RequestBuildFailure.bodyStreamLength(expected: expected, produced: produced))
                }
                return chunk
            }
        }
    }

    /// A sequence's iterator behind a closure, so the reader needs no generic
    /// parameter.
    fileprivate final class Chunks {
        let next: () async throws -> Data?
        init(_ next: @escaping () async throws -> Data?) { self.next = next }
    }
}

/// Chunks in memory, as an `AsyncSequence`.
private struct ChunkList: AsyncSequence, Sendable {
    let chunks: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Data>
        mutating func next() async -> Data? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}

extension RequestBodyStream {
    /// Reads the whole stream into memory, or into a private temporary file
    /// once it passes `memoryLimit` bytes: for a transport that cannot send a
    /// body as it is made. The file is the caller's to remove.
    func spool(memoryLimit: Int) async throws(NetworkError) -> SpooledBody {
        var reader = try makeReader()
        var spool = Spool(memoryLimit: memoryLimit)
        do throws(NetworkError) {
            while let chunk = try await reader.next() {
                do {
                    try spool.append(chunk)
                } catch {
                    throw .requestBuildFailed(RequestBuildFailure.unreadableBodyStream("spooling it to a file failed: \(error)"))
                }
            }
            do {
                return try spool.finish()
            } catch {
                throw .requestBuildFailed(RequestBuildFailure.unreadableBodyStream("spooling it to a file failed: \(error)"))
            }
        } catch {
            spool.discard()
            throw error
        }
    }
}

/// A body read whole: in memory, or in a private temporary file.
enum SpooledBody {
    case data(Data)
    case file(URL, length: Int64)
}

/// Collects a body in memory up to a limit, then in a private temporary file.
struct Spool {
    let memoryLimit: Int
    private var data = Data()
    private var file: (url: URL, handle: FileHandle)?
    private var length: Int64 = 0

    init(memoryLimit: Int) {
        self.memoryLimit = memoryLimit
    }

    mutating func append<Bytes: DataProtocol>(_ bytes: Bytes) throws {
        length += Int64(bytes.count)
        if let file {
            try file.handle.write(contentsOf: bytes)
            return
        }
        data.append(contentsOf: bytes)
        if data.count > memoryLimit {
            let created = try PrivateTemporaryFile.create(prefix: "body")
            file = created
            try created.handle.write(contentsOf: data)
            data = Data()
        }
    }

    mutating func finish() throws -> SpooledBody {
        guard let file else { return .data(data) }
        try file.handle.close()
        self.file = nil
        return .file(file.url, length: length)
    }

    /// Removes the file, if one was made.
    mutating func discard() {
        if let file {
            try? file.handle.close()
            try? FileManager.default.removeItem(at: file.url)
        }
        file = nil
        data = Data()
    }
}
