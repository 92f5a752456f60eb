import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

/// The auth plugin on a streamed call: a 401 head is refreshed and replayed
/// before any byte reaches the caller.
@Suite(.hangsFailTheSuite)
struct AuthStreamTests {
    @Test func a401HeadIsRefreshedAndReplayedBeforeTheBodyReachesTheCaller() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "fresh-only")
            let store = InMemoryCredentialStore(Credential(accessToken: "stale", refreshToken: "r"))
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, refresh: api.refresh())])
            let response = try await provider.stream(SecureTarget(baseURL: server.baseURL))
            #expect(response.statusCode == 200)
            #expect(try await response.collect(upTo: 1 << 10) == Data("ok".utf8))
            #expect(api.refreshCount == 1)
            #expect(api.protectedAuthorizations == ["Bearer stale", "Bearer access-1"])
        }
    }
}
