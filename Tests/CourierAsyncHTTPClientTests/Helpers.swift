import AsyncHTTPClient
import Courier
import CourierTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Runs `body` with a client made from `configuration`, and shuts the client
/// down however `body` ends: a client released without `shutdown()` stops
/// the whole test process (AsyncHTTPClient's check in its `deinit`), so one
/// failed request, a time-out on a starved machine, would take every other
/// test of the run with it. A client `body` shut down itself is left as it is.
func withClient<Value>(
    _ configuration: HTTPClient.Configuration,
    on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    _ body: (HTTPClient) async throws -> Value
) async throws -> Value {
    let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    let outcome = await Result(catching: { try await body(client) })
    // Throws only for a client that is already shut down.
    try? await client.shutdown()
    return try outcome.get()
}

/// Sends `target` and returns the `NetworkError` it failed with, recording an
/// issue when it succeeded.
func failure(of target: TestTarget, on provider: Provider<TestTarget>, progress: ProgressHandler? = nil) async -> NetworkError? {
    do {
        let response = try await provider.request(target, options: RequestOptions(progress: progress))
        Issue.record("expected a failure, got status \(response.statusCode)")
        return nil
    } catch {
        return error
    }
}

/// Progress reports of one direction, in the order they arrived.
func reports(_ all: [TransferProgress], _ direction: TransferProgress.Direction) -> [TransferProgress] {
    all.filter { $0.direction == direction }
}

/// A progress handler that ignores what it is told, when `streamed`: handing
/// one over makes a transport take its streaming path instead of collecting
/// the body whole.
func progress(streamed: Bool) -> ProgressHandler? {
    guard streamed else { return nil }
    return { _ in }
}
