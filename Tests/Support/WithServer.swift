@_exported import CourierLoopback
import Foundation

/// Starts a loopback server, runs `body` with it, and shuts it down, whatever
/// `body` does.
public func withServer<Result: Sendable>(
    _ body: (LoopbackServer) async throws -> Result
) async throws -> Result {
    let server = try await LoopbackServer.start()
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
