import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOPosix

/// Request bodies as AsyncHTTPClient takes them: small ones at once, larger
/// ones and files in 64 KiB chunks, each read only when the connection has
/// taken the one before, and streams as their sequence yields, joined while a
/// write is in flight (`UploadWindow`), so memory stays bounded.
enum RequestBodies {
    static let chunkSize = 64 * 1024

    /// The request's body, and for a streamed one the producer that keeps
    /// its reading task, for the transport to cancel when the request ends
    /// (`nil` for every other body, which has no task to cancel).
    static func make(for request: TransportRequest, on group: any EventLoopGroup,
                     joinLimit: Int) -> (body: HTTPClient.Body?, producer: BodyProducer?) {
        if let body = request.bodyStream {
            let producer = BodyProducer()
            return (stream(body, on: group, producer: producer, joinLimit: joinLimit), producer)
        }
        if let file = request.uploadFile {
            return (stream(length: request.bodyLength, on: group) { () throws -> any ChunkSource in
                try FileChunks(file)
            }, nil)
        }
        guard let data = request.urlRequest.httpBody else { return (nil, nil) }
        if data.count <= chunkSize { return (.bytes(data), nil) }
        return (stream(length: Int64(data.count), on: group) { DataChunks(data: data) }, nil)
    }

    /// A `RequestBodyStream`, chunk by chunk as its sequence yields them,
    /// written one at a time on the request's event loop, with the chunks
    /// that arrive while a write is in flight joined into the next (see
    /// `UploadWindow`): under `Content-Length` when its length is known,
    /// chunked otherwise.
    ///
    /// The reading starts as AsyncHTTPClient asks for the body (so a
    /// redirect decided before then sees the stream as unread only if it
    /// is). What the reader throws (a broken sequence, a wrong length) fails
    /// the request as it is. A server that answers with a status of 300 or
    /// more stops the upload: AsyncHTTPClient then refuses further writes,
    /// and the body ends there without failing the response. The reading
    /// task is cancelled when the request ends, however it ends, so a
    /// producer that waits is never waited on after the call.
    private static func stream(_ body: RequestBodyStream, on group: any EventLoopGroup, producer: BodyProducer,
                               joinLimit: Int) -> HTTPClient.Body {
        .stream(contentLength: body.knownLength) { writer in
            // AsyncHTTPClient asks for the body on the request's event loop,
            // where a write needs no hop.
            let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.any()
            let first: RequestBodyStream.Reader
            do {
                first = try body.makeReader()
            } catch {
                return loop.makeFailedFuture(error)
            }
            let done = loop.makePromise(of: Void.self)
            let window = UploadWindow(loop: loop, writer: writer, joinLimit: joinLimit)
            producer.start { [first] in
                var reader = first
                do {
                    try await window.send(&reader)
                    done.succeed()
                } catch let error as HTTPClientError where error == .requestStreamCancelled {
                    done.succeed()
                } catch {
                    done.fail(error)
                }
            }
            return done.futureResult
        }
    }

    private static func stream(length: Int64, on group: any EventLoopGroup,
                               source: @escaping @Sendable () throws -> any ChunkSource) -> HTTPClient.Body {
        .stream(contentLength: length) { writer in
            let done = group.any().makePromise(of: Void.self)
            done.completeWithTask {
                var chunks = try source()
                defer { chunks.close() }
                var sent: Int64 = 0
                while sent < length {
                    let chunk = try chunks.next(max: Int(min(Int64(chunkSize), length - sent)))
                    try await writer.write(.byteBuffer(ByteBuffer(bytes: chunk))).get()
                    sent += Int64(chunk.count)
                }
            }
            return done.futureResult
        }
    }
}

/// Where an upload's chunks come from.
protocol ChunkSource {
    /// The next chunk of at most `max` bytes; throws when the source ends early.
    mutating func next(max: Int) throws -> Data
    func close()
}

private struct DataChunks: ChunkSource {
    let data: Data
    var offset = 0

    mutating func next(max: Int) throws -> Data {
        let start = data.startIndex + offset
        let end = min(start + max, data.endIndex)
        offset += end - start
        return data[start..<end]
    }

    func close() {}
}

private struct FileChunks: ChunkSource {
    let handle: FileHandle
    let path: String

    init(_ url: URL) throws {
        path = url.path
        handle = try FileHandle(forReadingFrom: url)
    }

    mutating func next(max: Int) throws -> Data {
        let chunk = try handle.read(upToCount: max) ?? Data()
        guard !chunk.isEmpty else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        return chunk
    }

    func close() {
        try? handle.close()
    }
}

/// The task that reads a streamed request body, started when AsyncHTTPClient
/// asks for the body and cancelled when the request ends.
final class BodyProducer: Sendable {
    private let state = Locked(StartStateMachine<Void, Task<Void, Never>>(waiting: ()))

    init() {}

    /// Starts `work`, or does nothing if the request has already ended.
    func start(_ work: sending @escaping () async -> Void) {
        let task = Task { await work() }
        if case .cancel(let task) = state.withLock({ $0.started(task) }) { task.cancel() }
    }

    /// Cancels the reading, now or as soon as it starts.
    func cancel() {
        if case .cancel(let task) = state.withLock({ $0.stop() }) { task.cancel() }
    }
}
