import NIOCore
import NIOPosix

/// A listener on 127.0.0.1 whose connections are read as raw bytes (copied
/// on the event loop, see ``CopiesInboundBuffers``), for the test servers
/// that speak HTTP by hand.
struct RawListener: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// The port it listens on.
    let port: Int
    /// The listening channel.
    let channel: NIOAsyncChannel<Connection, Never>

    /// Binds a free port and returns once connections are accepted.
    static func bind() async throws -> RawListener {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CopiesInboundBuffers<ByteBuffer>())
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = channel.channel.localAddress?.port else { throw LoopbackError.noPort }
        return RawListener(port: port, channel: channel)
    }

    /// Serves each connection in a task of its own with `serve`, until the
    /// listener closes.
    func serveEach(_ serve: @escaping @Sendable (Connection) async -> Void) -> ServingTask {
        ServingTask { [channel] listenerEnded in
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    // However the listener's sequence ends, before the group
                    // waits for the connections.
                    defer { listenerEnded() }
                    for try await connection in inbound {
                        group.addTask { await serve(connection) }
                    }
                }
            }
        }
    }
}
