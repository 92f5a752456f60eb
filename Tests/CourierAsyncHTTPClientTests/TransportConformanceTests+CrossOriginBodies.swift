import Courier
import CourierTestSupport
import Foundation
import Testing

/// A body follows a redirect only within its origin, unless the caller
/// allows more, and the caller may refuse any redirect: on every transport.
extension TransportConformanceTests {
    @Test(arguments: TransportKind.allCases, [307, 308])
    func aBodyIsNeverReplayedToAnotherOriginUnlessAllowed(kind: TransportKind, status: Int) async throws {
        try await withServer { elsewhere in
            for allowed in [false, true] {
                let transfer = TransferConfiguration(redirects: .init(allowsBodyToOtherOrigins: allowed))
                try await kind.withProvider(transfer: transfer) { provider, server in
                    let destination = elsewhere.url("/echo").absoluteString
                    server.route("/upload") { _ in LoopbackResponse(status: status, headers: [("Location", destination)]) }
                    let target = TestTarget(server.baseURL, path: "/upload", method: .post, task: .requestData(Data("private notes".utf8)))
                    if allowed {
                        let echo = try Echo(try await provider.request(target))
                        #expect(echo.bodyData == Data("private notes".utf8))
                    } else {
                        let error = await failure(of: target, on: provider)
                        guard case .redirectRefused(.bodyToAnotherOrigin) = error else {
                            Issue.record("expected redirectRefused, got \(String(describing: error))")
                            return
                        }
                        #expect("\(error.map { "\($0)" } ?? "")".contains("allowsBodyToOtherOrigins"))
                        #expect(elsewhere.hits("/echo") == 0)
                    }
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aBodyStillFollowsARedirectWithinItsOrigin(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            server.route("/upload") { _ in LoopbackResponse(status: 307, headers: [("Location", "/echo")]) }
            let target = TestTarget(server.baseURL, path: "/upload", method: .put, task: .requestData(Data("notes".utf8)))
            let echo = try Echo(try await provider.request(target))
            #expect(echo.bodyData == Data("notes".utf8))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theCallerMayRefuseARedirect(kind: TransportKind) async throws {
        let seen = Mutex<[RedirectHop]>([])
        let transfer = TransferConfiguration(redirects: .init(decide: { hop in
            seen.withLock { $0.append(hop) }
            return hop.to.path == "/echo" ? .refuse : .follow
        }))
        try await kind.withProvider(transfer: transfer) { provider, server in
            server.route("/first") { _ in LoopbackResponse(status: 302, headers: [("Location", "/second")]) }
            server.route("/second") { _ in LoopbackResponse(status: 303, headers: [("Location", "/echo")]) }
            let error = await failure(of: TestTarget(server.baseURL, path: "/first", method: .post), on: provider)
            guard case .redirectRefused(.refusedByPolicy(statusCode: 303)) = error else {
                Issue.record("expected redirectRefused, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/second") == 1)
            #expect(server.hits("/echo") == 0)
            let hops = seen.withLock { $0 }
            #expect(hops.map(\.statusCode) == [302, 303])
            #expect(hops.map(\.to.path) == ["/second", "/echo"])
            #expect(hops.map(\.method) == ["GET", "GET"])
            #expect(hops.allSatisfy { !$0.crossesOrigin })
        }
    }
}
