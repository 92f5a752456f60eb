import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

/// The token goes only to the target's own origin.
@Suite(.hangsFailTheSuite)
struct AuthPluginOriginTests {
    @Test func aRequestSentToAnotherHostThanTheTargetsGetsNoToken() async throws {
        try await withServer { home in
            try await withServer { elsewhere in
                let store = InMemoryCredentialStore(Credential(accessToken: "secret-token"))
                let plugin = AuthPlugin(store: store, refresh: { $0 })
                let moved = Provider<SecureTarget>(
                    endpointClosure: { target in
                        Endpoint(url: elsewhere.url("/echo").absoluteString, sampleResponseClosure: { .networkResponse(200, Data()) },
                                 method: target.method, task: target.task, httpHeaderFields: target.headers)
                    },
                    plugins: [plugin]
                )
                let direct = Provider<SecureTarget>(plugins: [plugin])
                let target = SecureTarget(baseURL: home.baseURL, path: "/echo")

                let movedResponse = try await moved.request(target)
                let directResponse = try await direct.request(target)

                #expect(try Echo(movedResponse).header("Authorization") == nil)
                #expect(elsewhere.hits("/echo") == 1)
                #expect(try Echo(directResponse).header("Authorization") == "Bearer secret-token")
            }
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectToAnotherHostCarriesNoToken(status: Int) async throws {
        try await withServer { home in
            try await withServer { elsewhere in
                let destination = elsewhere.url("/echo").absoluteString
                home.route("/hop") { _ in LoopbackResponse(status: status, headers: [("Location", destination)]) }
                let store = InMemoryCredentialStore(Credential(accessToken: "secret-token"))
                let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, refresh: { $0 })])

                let response = try await provider.request(SecureTarget(baseURL: home.baseURL, path: "/hop"))

                #expect(response.statusCode == 200)
                #expect(home.requests(to: "/hop").first?.header("Authorization") == "Bearer secret-token")
                let arrived = try #require(elsewhere.requests(to: "/echo").first)
                #expect(arrived.header("Authorization") == nil)
                #expect(!arrived.headers.contains { $0.value.contains("secret-token") })
            }
        }
    }

    @Test(arguments: [302, 307])
    func aRefusalFromAnotherOriginARedirectReachedRefreshesNothing(status: Int) async throws {
        try await withServer { home in
            try await withServer { elsewhere in
                let destination = elsewhere.url("/login-wall").absoluteString
                home.route("/hop") { _ in LoopbackResponse(status: status, headers: [("Location", destination)]) }
                elsewhere.route("/login-wall") { _ in .text("who are you?", status: 401) }
                let store = InMemoryCredentialStore(Credential(accessToken: "secret-token", refreshToken: "r"))
                let refreshes = Mutex(0)
                let plugin = AuthPlugin(store: store, refresh: { credential in
                    refreshes.withLock { $0 += 1 }
                    return Credential(accessToken: "renewed-token", refreshToken: credential.refreshToken)
                })
                let provider = Provider<SecureTarget>(plugins: [plugin])

                let response = try await provider.request(SecureTarget(baseURL: home.baseURL, path: "/hop"))

                #expect(response.statusCode == 401)
                #expect(refreshes.withLock { $0 } == 0)
                #expect(home.hits("/hop") == 1)
                #expect(elsewhere.hits("/login-wall") == 1)
                #expect(store.credential?.accessToken == "secret-token")
            }
        }
    }
}
