import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1, on a port the OS chooses, running inside
/// the process on SwiftNIO. The demo and the tests talk to it instead of the
/// internet.
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
    private let channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    private let serving: Task<Void, Never>
    private let state: ServerState

    /// `http://127.0.0.1:{port}`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!  // A literal host and an integer port always form a URL.
    }

    /// Starts a server and returns once it accepts connections.
    public static func start() async throws -> LoopbackServer {
        let state = ServerState()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        guard let port = channel.channel.localAddress?.port else {
            throw LoopbackError.noPort
        }
        let serving = Task {
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask {
                            await ConnectionHandler(state: state).serve(connection)
                        }
                    }
                }
            }
        }
        return LoopbackServer(port: port, channel: channel, serving: serving, state: state)
    }

    private init(
        port: Int,
        channel: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>,
        serving: Task<Void, Never>,
        state: ServerState
    ) {
        self.port = port
        self.channel = channel
        self.serving = serving
        self.state = state
    }

    /// Stops accepting connections and closes the open ones.
    public func shutdown() async {
        try? await channel.channel.close()
        state.closeAllConnections()
        serving.cancel()
        await serving.value
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
        let body = method == "HEAD" ? Data() : response.bodyData
        let length = method == "HEAD" ? response.bodyData.count : body.count
        return (response.status, response.headers + [("Content-Length", String(length))], body)
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
