// The code of Plugins/Auth/CourierAuth.docc/CourierAuth.md.

import Courier
import CourierAuth
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct CourierAuthCatalogSnippets {
    @Test func theAuthPluginAddsTheStoredToken() async throws {
        try await withServer { server in
            server.route("/me") { request in .text(request.header("Authorization") ?? "none") }
            let store = InMemoryCredentialStore(Credential(accessToken: "abc", refreshToken: "r1", expiresIn: 3600))
            let provider = Provider<ProfileEndpoint>(plugins: [
                .auth(store, refresh: { credential in try await renew(credential) }),
            ])
            let response = try await provider.request(ProfileEndpoint(baseURL: server.baseURL))
            #expect(response.bodyText == "Bearer abc")
        }
    }

    @Test func anExpiredTokenIsRenewedBeforeSending() async throws {
        try await withServer { server in
            server.route("/me") { request in .text(request.header("Authorization") ?? "none") }
            let store = InMemoryCredentialStore(Credential(accessToken: "abc", refreshToken: "r1", expiresIn: -60))
            let provider = Provider<ProfileEndpoint>(plugins: [
                .auth(store, refresh: { credential in try await renew(credential) }),
            ])
            let response = try await provider.request(ProfileEndpoint(baseURL: server.baseURL))
            #expect(response.bodyText == "Bearer renewed-abc")
            #expect(store.accessToken == "renewed-abc")
            #expect(server.hits("/me") == 1)
        }
    }
}
