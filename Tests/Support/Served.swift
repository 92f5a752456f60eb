import Courier
import Foundation

/// Serves `body` with `contentType` from a loopback server and returns the
/// response a plain provider received for it, for tests that map a body a
/// server sent.
public func served(_ body: Data, contentType: String) async throws -> Response {
    try await withServer { server in
        server.route("/body") { _ in LoopbackResponse(headers: [("Content-Type", contentType)], body: .data(body)) }
        return try await Provider<TestTarget>().request(TestTarget(server.baseURL, path: "/body"))
    }
}
