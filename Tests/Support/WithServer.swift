@_exported import CourierLoopback
import Foundation

/// Starts a loopback server (HTTPS with `tls`), runs `body` with it, and
/// shuts it down, whatever `body` does.
public func withServer<Result: Sendable>(
    tls: LoopbackTLS? = nil,
    _ body: (LoopbackServer) async throws -> Result
) async throws -> Result {
    try await withStarted({ try await LoopbackServer.start(tls: tls) }, shutdown: { await $0.shutdown() }, body)
}

/// Starts a misbehaving server, runs `body` with it, and shuts it down,
/// whatever `body` does.
public func withFaultyServer<Result: Sendable>(
    _ body: (FaultyServer) async throws -> Result
) async throws -> Result {
    try await withStarted(FaultyServer.start, shutdown: { await $0.shutdown() }, body)
}

/// Starts something that must be shut down (a server, a transport that owns
/// an AsyncHTTPClient, which traps when released running), runs `body` with
/// it, and shuts it down whatever `body` does. A failure to shut down is
/// thrown after a body that succeeded; after one that threw, the body's error
/// is the one thrown.
public func withStarted<Resource, Result: Sendable>(
    _ start: () async throws -> Resource,
    shutdown: (Resource) async throws -> Void,
    _ body: (Resource) async throws -> Result
) async throws -> Result {
    let resource = try await start()
    do {
        let result = try await body(resource)
        try await shutdown(resource)
        return result
    } catch {
        try? await shutdown(resource)
        throw error
    }
}

extension LoopbackServer {
    /// A route that fails with `status` (and `headers`) `failures` times, then
    /// answers `success` (200 "ok" unless given).
    public func routeFlaky(path: String = "/flaky", failures: Int, status: Int = 503,
                           headers: [(name: String, value: String)] = [], success: LoopbackResponse = .text("ok")) {
        let count = Mutex(0)
        route(path) { _ in
            let hit = count.withLock { count in
                count += 1
                return count
            }
            return hit <= failures ? .text("try again", status: status, headers: headers) : success
        }
    }
}
