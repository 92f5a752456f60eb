import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTP/1.1 server on 127.0.0.1, on a port the OS chooses, running inside
/// the process on SwiftNIO. The demo and the tests talk to it instead of the
/// internet. Started with a ``LoopbackTLS``, it speaks HTTPS with one of the
/// test certificates, and HTTP/2 to clients that offer it.
///
/// It records every request, counts hits per path, and can be awaited: a test
/// waits for a request to arrive or a connection to close instead of sleeping.
///
/// Built-in routes:
/// - `/echo` — the request as JSON (method, uri, path, query, headers, base64 body)
/// - `/status/{code}` — that status, with a short text body
/// - `/delay/{milliseconds}` — `ok` after the delay
/// - `/redirect/{code}?to={url}` — a redirect with that status
/// - `/bytes/{count}?seed={n}` — deterministic bytes, with `X-Body-SHA256`
/// - `/chunked/{count}?chunks={n}` — deterministic bytes in chunked encoding
///
/// Anything else answers 404 unless a custom route matches (see
/// ``route(_:prefix:_:)``).
public final class LoopbackServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The TLS it speaks, or `nil` for plain HTTP.
    public let tls: LoopbackTLS?
    private let channel: NIOAsyncChannel<EventLoopFuture<Negotiated>, Never>
    private let serving: ServingTask
    private let state: ServerState

    /// One HTTP exchange channel: a connection, or a stream of an HTTP/2 one.
    typealias Exchange = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    /// What a connection turned into: HTTP/1.1, or HTTP/2 with its streams.
    typealias Negotiated = NIONegotiatedHTTPVersion<Exchange, (any Channel, NIOHTTP2Handler.AsyncStreamMultiplexer<Exchange>)>

    /// `http://127.0.0.1:{port}`, or `https://` with TLS.
    public var baseURL: URL {
        URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")!  // A literal host and an integer port always form a URL.
    }

    /// Starts a server and returns once it accepts connections.
    /// - Parameter tls: The certificate to serve HTTPS with, and whether to
    ///   offer HTTP/2; `nil` (the default) for plain HTTP/1.1.
    public static func start(tls: LoopbackTLS? = nil) async throws -> LoopbackServer {
        let state = ServerState()
        let context = try tls.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                guard let context else {
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(CopiesInboundBuffers<HTTPServerRequestPart>())
                        return channel.eventLoop.makeSucceededFuture(Negotiated.http1_1(try Exchange(wrappingChannelSynchronously: channel)))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureAsyncHTTPServerPipeline { http1 in
                        // The helper has put the HTTP/1.1 codec in place.
                        http1.eventLoop.makeCompletedFuture {
                            try http1.pipeline.syncOperations.addHandler(CopiesInboundBuffers<HTTPServerRequestPart>())
                            return try Exchange(wrappingChannelSynchronously: http1)
                        }
                    } http2ConnectionInitializer: { http2 in
                        http2.eventLoop.makeSucceededFuture(http2)
                    } http2StreamInitializer: { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(CopiesInboundBuffers<HTTPServerRequestPart>())
                            return try Exchange(wrappingChannelSynchronously: stream)
                        }
                    }
                }
            }
        guard let port = channel.channel.localAddress?.port else {
            throw LoopbackError.noPort
        }
        let serving = ServingTask { listenerEnded in
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    // However the listener's sequence ends, before the group
                    // waits for the connections.
                    defer { listenerEnded() }
                    for try await negotiation in inbound {
                        group.addTask {
                            // A client that gives up during the handshake (a
                            // refused certificate) leaves nothing to serve.
                            guard let negotiated = try? await negotiation.get() else { return }
                            await serve(negotiated, state: state)
                        }
                    }
                }
            }
        }
        return LoopbackServer(port: port, tls: tls, channel: channel, serving: serving, state: state)
    }

    private static func serve(_ negotiated: Negotiated, state: ServerState) async {
        switch negotiated {
        case .http1_1(let connection):
            await ConnectionHandler(state: state).serve(connection)
        case .http2((let connection, let streams)):
            let id = state.open(connection)
            connection.closeFuture.whenComplete { _ in state.closed(id) }
            try? await withThrowingDiscardingTaskGroup { group in
                for try await stream in streams.inbound {
                    group.addTask {
                        await ConnectionHandler(state: state).serve(stream, connectionID: id)
                    }
                }
            }
        }
    }

    private init(
        port: Int,
        tls: LoopbackTLS?,
        channel: NIOAsyncChannel<EventLoopFuture<Negotiated>, Never>,
        serving: ServingTask,
        state: ServerState
    ) {
        self.port = port
        self.tls = tls
        self.channel = channel
        self.serving = serving
        self.state = state
    }

    /// Stops accepting connections and closes the open ones.
    public func shutdown() async {
        try? await channel.channel.close()
        state.closeAllConnections()
        await serving.stop()
    }

    /// The URL of `path` on this server, for example `url("/echo?x=1")`.
    public func url(_ path: String) -> URL {
        URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL
    }

    // MARK: - Routes

    /// Answers requests to `path` (or every path under it, with `prefix`) with
    /// `handler`. Custom routes win over built-in ones.
    public func route(_ path: String, prefix: Bool = false, _ handler: @escaping LoopbackHandler) {
        state.addRoute(path: path, prefix: prefix, handler: handler)
    }

    // MARK: - Answering without a socket

    /// Records a request and answers it as the server would over a
    /// connection, for transports that stay in memory.
    public func respond(
        method: String, uri: String, headers: [(name: String, value: String)], body: Data
    ) async -> (status: Int, headers: [(name: String, value: String)], body: Data) {
        let request = RecordedRequest(method: method, uri: uri, headers: headers, body: body, connectionID: 0)
        state.record(request)
        let response = await ConnectionHandler(state: state).respond(to: request)
        var whole = response.bodyData
        if case .streamed(let produce) = response.body {
            let collected = Protected(Data())
            try? await produce(LoopbackBodyWriter { data in collected.withLock { $0.append(data) } })
            whole = collected.withLock { $0 }
        }
        let body = method == "HEAD" ? Data() : whole
        return (response.status, response.headers + [("Content-Length", String(whole.count))], body)
    }

    // MARK: - What the server saw

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { state.requests }

    /// The requests received for `path`.
    public func requests(to path: String) -> [RecordedRequest] {
        state.requests.filter { $0.path == path }
    }

    /// How many requests arrived for `path`.
    public func hits(_ path: String) -> Int {
        requests(to: path).count
    }

    /// How many requests arrived for paths starting with `prefix`.
    public func hits(prefix: String) -> Int {
        state.requests.filter { $0.path.hasPrefix(prefix) }.count
    }

    /// Waits until `count` requests for `path` have arrived and returns the last
    /// of them.
    @discardableResult
    public func waitForRequest(to path: String, count: Int = 1) async -> RecordedRequest {
        await state.waitForRequest { requests in
            let matching = requests.filter { $0.path == path }
            return matching.count >= count ? matching[count - 1] : nil
        }
    }

    /// Waits until at least `count` bytes of request bodies sent to `path`
    /// have arrived, counted as they come, before their requests end: the way
    /// to see that a client sends a body while it is still being made.
    public func waitForBodyBytes(to path: String, atLeast count: Int) async {
        await state.waitForBodyBytes(path: path, atLeast: count)
    }

    /// Waits until the connection with `connectionID` has been closed.
    public func waitForClose(ofConnection connectionID: Int) async {
        await state.waitForClose(connectionID)
    }

    /// How many connections have been closed by either side.
    public var closedConnections: Int { state.closedCount }

    /// Forgets every recorded request.
    public func resetRecords() {
        state.reset()
    }

    // MARK: - Deterministic bodies

    /// `count` pseudo-random bytes, the same for the same `seed` (xorshift64).
    public static func bytes(count: Int, seed: UInt64 = 1) -> Data {
        var generator = ByteGenerator(seed: seed)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            generator.fill(buffer)
        }
        return data
    }
}

enum LoopbackError: Error {
    case noPort
}

/// xorshift64: fast, deterministic bytes.
struct ByteGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var index = 0
        while index < buffer.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var word = state
            for _ in 0..<8 where index < buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
}
