import Foundation
import NIOCore
import NIOPosix

/// An HTTP proxy on 127.0.0.1 that answers `CONNECT host:port` by opening a
/// tunnel to that address and copying bytes both ways, and counts the
/// tunnels it opened: a test can tell a connection made through the proxy
/// from one made around it.
public final class ConnectProxy: Sendable {
    /// The port the proxy listens on.
    public let port: Int
    private let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let serving: ServingTask
    private let tunnels: Protected<[String]>

    /// The `host:port` of every tunnel asked for, in order.
    public var tunnelTargets: [String] { tunnels.withLock { $0 } }

    /// Starts a proxy and returns once it accepts connections.
    public static func start() async throws -> ConnectProxy {
        ConnectProxy(listener: try await RawListener.bind())
    }

    private init(listener: RawListener) {
        self.port = listener.port
        self.listener = listener.channel
        let tunnels = Protected<[String]>([])
        self.tunnels = tunnels
        self.serving = listener.serveEach { client in await Self.tunnel(client, recording: tunnels) }
    }

    /// Closes the listener and waits for the open tunnels to end.
    public func shutdown() async {
        try? await listener.channel.close()
        await serving.stop()
    }

    /// Reads the `CONNECT` request, connects, answers 200 and copies bytes
    /// both ways until either side closes. Anything else is a 405.
    private static func tunnel(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, recording tunnels: Protected<[String]>) async {
        try? await client.executeThenClose { clientInbound, clientOutbound in
            var iterator = clientInbound.makeAsyncIterator()
            var request = ByteBuffer()
            var head = ""
            while head.isEmpty, var chunk = try await iterator.next() {
                request.writeBuffer(&chunk)
                if let end = String(buffer: request).range(of: "\r\n\r\n") {
                    head = String(String(buffer: request)[..<end.lowerBound])
                }
            }
            let words = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
            guard words.count == 3, words[0] == "CONNECT", let colon = words[1].lastIndex(of: ":"),
                  let port = Int(words[1][words[1].index(after: colon)...]) else {
                try await clientOutbound.write(ByteBuffer(string: "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n"))
                return
            }
            let host = String(words[1][..<colon])
            tunnels.withLock { $0.append("\(host):\(port)") }
            let server = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(CopiesInboundBuffers<ByteBuffer>())
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            // Straight into executeThenClose: an async channel dropped unused
            // (the client gone before the answer) is a fatal error in NIO.
            try await server.executeThenClose { serverInbound, serverOutbound in
                try await clientOutbound.write(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // The server closing ends the tunnel: the client is closed too.
                    group.addTask { [channel = client.channel] in
                        do {
                            for try await chunk in serverInbound { try await clientOutbound.write(chunk) }
                        } catch {}
                        try? await channel.close()
                    }
                    do {
                        while let chunk = try await iterator.next() { try await serverOutbound.write(chunk) }
                    } catch {}
                    try? await server.channel.close()
                    try await group.waitForAll()
                }
            }
        }
    }
}
