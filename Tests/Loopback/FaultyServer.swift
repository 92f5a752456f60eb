import CZlib
import Foundation
import NIOCore
import NIOPosix

/// A server on 127.0.0.1 that misbehaves on demand, the way a broken network
/// or a hostile server does. It speaks raw bytes, not through an HTTP
/// encoder, so it can send what no well-behaved server would.
///
/// Each path is one fault; ``url(_:)`` gives its URL:
/// - ``Fault/resetMidBody``: 64 KiB of a 1 MB body, then a TCP reset.
/// - ``Fault/closeEarly``: 1,000 bytes of a 100,000-byte body, then a close.
/// - ``Fault/stallAfterHead``: the head, then silence until the client leaves.
/// - ``Fault/trickle``: one byte every 50 ms of a 1 MB body, forever.
/// - ``Fault/endlessChunked``: a chunked body that never ends.
/// - ``Fault/gzipBomb`` and ``Fault/deflateBomb``: 1 GB of zeros, compressed
///   to about 1 MB, with `Content-Encoding`.
/// - ``Fault/oversizedHead``: a header block of 1 MiB.
/// - ``Fault/malformedStatusLine``: a status line that is not HTTP.
/// - ``Fault/chunkedCutShort``: a chunked body of one 1,000-byte chunk, then
///   a close where the next chunk or the end should be.
/// - ``Fault/badChunkSize``: a chunked body of one 1,000-byte chunk, then a
///   chunk size that is not hexadecimal.
public final class FaultyServer: Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        case resetMidBody = "reset"
        case closeEarly = "close-early"
        case stallAfterHead = "stall"
        case trickle
        case endlessChunked = "endless"
        case gzipBomb = "gzip-bomb"
        case deflateBomb = "deflate-bomb"
        case oversizedHead = "huge-head"
        case malformedStatusLine = "bad-status"
        case chunkedCutShort = "chunked-cut"
        case badChunkSize = "bad-chunk"
    }

    public let port: Int
    private let channel: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let serving: ServingTask
    private let connections = Protected<[ObjectIdentifier: any Channel]>([:])
    private let endlessClosed = Protected(0)

    /// The connections on which writing a ``Fault/endlessChunked`` body
    /// failed because the client closed them: a test that stops reading
    /// waits on it to know the client gave up.
    public var endlessConnectionsClosed: Int { endlessClosed.withLock { $0 } }

    /// The URL that triggers `fault`.
    public func url(_ fault: Fault) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(fault.rawValue)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a server and returns once it accepts connections.
    public static func start() async throws -> FaultyServer {
        FaultyServer(listener: try await RawListener.bind())
    }

    private init(listener: RawListener) {
        self.port = listener.port
        self.channel = listener.channel
        let connections = self.connections
        let endlessClosed = self.endlessClosed
        self.serving = listener.serveEach { connection in
            let id = ObjectIdentifier(connection.channel)
            connections.withLock { $0[id] = connection.channel }
            await Self.serve(connection, endlessClosed: endlessClosed)
            connections.withLock { _ = $0.removeValue(forKey: id) }
        }
    }

    /// Closes the listener and every connection.
    public func shutdown() async {
        try? await channel.channel.close()
        for connection in connections.withLock({ Array($0.values) }) {
            connection.close(promise: nil)
        }
        await serving.stop()
    }

    // MARK: - One connection

    private static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, endlessClosed: Protected<Int>) async {
        try? await connection.executeThenClose { inbound, outbound in
            var request = ByteBuffer()
            for try await var chunk in inbound {
                request.writeBuffer(&chunk)
                let text = String(buffer: request)
                guard let end = text.range(of: "\r\n\r\n") else { continue }
                let path = text[..<end.lowerBound].split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                guard let fault = Fault(rawValue: String(path.dropFirst())) else {
                    try await outbound.write(ByteBuffer(string: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))
                    request.clear()
                    continue
                }
                try await misbehave(fault, connection: connection.channel, outbound: outbound, endlessClosed: endlessClosed)
                return
            }
        }
    }

    private static func misbehave(
        _ fault: Fault,
        connection: any Channel,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        endlessClosed: Protected<Int>
    ) async throws {
        func write(_ text: String) async throws { try await outbound.write(ByteBuffer(string: text)) }
        func head(_ fields: String) -> String { "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\(fields)\r\n" }
        switch fault {
        case .resetMidBody:
            try await write(head("Content-Length: 1000000\r\n"))
            try await outbound.write(ByteBuffer(repeating: 7, count: 64 * 1024))
            // SO_LINGER with a zero time-out: close() sends a reset, not a FIN.
            try await (connection as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            try await connection.close()
        case .closeEarly:
            try await write(head("Content-Length: 100000\r\n"))
            try await outbound.write(ByteBuffer(repeating: 7, count: 1000))
            try await connection.close()
        case .stallAfterHead:
            try await write(head("Content-Length: 10\r\n"))
            try await connection.closeFuture.get()
        case .trickle:
            try await write(head("Content-Length: 1000000\r\n"))
            // Paced on the event loop, not in a Swift task: a busy cooperative
            // thread pool (a full test run, the thread sanitizer) must not turn
            // the trickle into a stall.
            let pacer = connection.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(50)) { _ in
                connection.writeAndFlush(ByteBuffer(repeating: 7, count: 1), promise: nil)
            }
            try? await connection.closeFuture.get()
            pacer.cancel()
        case .endlessChunked:
            try await write(head("Transfer-Encoding: chunked\r\n"))
            let chunk = ByteBuffer(string: "10000\r\n" + String(repeating: "x", count: 0x10000) + "\r\n")
            do {
                while true { try await outbound.write(chunk) }
            } catch {
                endlessClosed.withLock { $0 += 1 }
                throw error
            }
        case .gzipBomb, .deflateBomb:
            let gzip = fault == .gzipBomb
            try await write(head("Content-Encoding: \(gzip ? "gzip" : "deflate")\r\nTransfer-Encoding: chunked\r\n"))
            try await ZerosCompressor.stream(gigabytes: 1, gzip: gzip) { compressed in
                var chunk = ByteBuffer(string: String(compressed.count, radix: 16) + "\r\n")
                chunk.writeBytes(compressed)
                chunk.writeString("\r\n")
                try await outbound.write(chunk)
            }
            try await write("0\r\n\r\n")
        case .oversizedHead:
            try await write("HTTP/1.1 200 OK\r\nX-Padding: " + String(repeating: "a", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nok")
            try await connection.closeFuture.get()
        case .malformedStatusLine:
            try await write("HTTP/1.1 two hundred\r\nContent-Length: 2\r\n\r\nok")
            try await connection.closeFuture.get()
        case .chunkedCutShort:
            try await write(head("Transfer-Encoding: chunked\r\n") + "3e8\r\n" + String(repeating: "x", count: 1000) + "\r\n")
            try await connection.close()
        case .badChunkSize:
            try await write(head("Transfer-Encoding: chunked\r\n") + "3e8\r\n" + String(repeating: "x", count: 1000) + "\r\n"
                + "zz\r\n" + String(repeating: "x", count: 1000) + "\r\n0\r\n\r\n")
            try await connection.closeFuture.get()
        }
    }
}

/// Compresses zeros with zlib as the client reads them, so a bomb costs the
/// server only what the client takes.
enum ZerosCompressor {
    static func stream(gigabytes: Int, gzip: Bool, _ emit: ([UInt8]) async throws -> Void) async throws {
        guard let encoder = DeflateEncoder(gzip: gzip, level: 9) else { return }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for index in 0..<(gigabytes * 1024) {
            let compressed = encoder.encode(zeros, finish: index == gigabytes * 1024 - 1)
            if !compressed.isEmpty { try await emit(compressed) }
        }
    }
}

/// zlib's deflate as a stream: bytes in, compressed bytes out, a piece at a
/// time, in the gzip or the zlib (`deflate`) format. A test server encodes a
/// body as it writes it, so a large body costs it no more than a piece.
public final class DeflateEncoder {
    private var stream = z_stream()

    /// `nil` when zlib cannot start.
    public init?(gzip: Bool, level: Int32 = 6) {
        guard deflateInit2_(&stream, level, Z_DEFLATED, gzip ? 31 : 15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    }

    deinit {
        deflateEnd(&stream)
    }

    /// The compressed bytes for `input`; with `finish`, the stream's end too.
    public func encode(_ input: [UInt8], finish: Bool = false) -> [UInt8] {
        var input = input
        var result: [UInt8] = []
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    _ = deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    result += out[0..<(out.count - Int(stream.avail_out))]
                }
            } while stream.avail_out == 0
        }
        return result
    }
}
