// The code of Core/Courier.docc/Authentication.md.

import CourierCodable
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Courier
import CourierAuth

/// The signed-in user's profile: a request that carries the access token.
struct ProfileEndpoint: TargetType, AccessTokenAuthorizable {
    let baseURL: URL
    var path: String { "/me" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
    var authorizationType: AuthorizationType? { .bearer }
}

func loadProfile(_ provider: Provider<ProfileEndpoint>, baseURL: URL) async -> String {
    do throws(NetworkError) {
        let response = try await provider.request(ProfileEndpoint(baseURL: baseURL))
        return String(decoding: response.data, as: UTF8.self)
    } catch .plugin(_, let reason as AuthPlugin.Failure) {
        return "Sign in again: \(reason)"
    } catch {
        return "\(error)"
    }
}

/// The token endpoint: trades a refresh token for new tokens. It carries no
/// access token (it is not `AccessTokenAuthorizable`).
struct TokenRefresh: TargetType {
    let baseURL: URL
    let refreshToken: String
    var path: String { "/token" }
    var method: HTTPMethod { .post }
    var task: RequestTask {
        .requestParameters(parameters: ["grant_type": "refresh_token", "refresh_token": refreshToken],
                           encoding: URLEncoding.httpBody)
    }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
}

/// What the token endpoint answers.
struct Tokens: Decodable, Sendable {
    let access: String
    let refresh: String?
    let expiresIn: TimeInterval?
}

/// `/me` answers "ada" to the token "fresh" and 401 to anything else;
/// `/token` issues "fresh", or refuses with 401 when `refusesRefresh`.
private func routeAccount(on server: LoopbackServer, refusesRefresh: Bool = false) {
    server.route("/me") { request in
        request.header("Authorization") == "Bearer fresh" ? .text("ada") : .text("expired", status: 401)
    }
    server.route("/token") { _ in
        refusesRefresh
            ? .text("refresh token revoked", status: 401)
            : .json(Data(#"{"access": "fresh", "refresh": "r2", "expiresIn": 3600}"#.utf8))
    }
}

/// `/me` answers with the `Authorization` header it received.
private func routeEcho(on server: LoopbackServer) {
    server.route("/me") { request in .text(request.header("Authorization") ?? "none") }
}

@Suite struct AuthenticationSnippets {
    @Test func aRefusedTokenIsRefreshedAndTheRequestReplayed() async throws {
        try await withServer { server in
            routeAccount(on: server)
            let baseURL = server.baseURL
            let store = InMemoryCredentialStore(Credential(accessToken: "revoked-by-the-server", refreshToken: "r1"))
            let refresher = Provider<TokenRefresh>()
            let auth = AuthPlugin(store: store) { credential in
                let response = try await refresher.request(TokenRefresh(baseURL: baseURL, refreshToken: credential.refreshToken ?? ""))
                let tokens = try response.map(Tokens.self)
                return Credential(accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokens.expiresIn)
            }
            let provider = Provider<ProfileEndpoint>(plugins: [auth])
            let profile = try await provider.request(ProfileEndpoint(baseURL: baseURL))
            #expect(profile.bodyText == "ada")
            #expect(store.accessToken == "fresh")
            #expect(store.refreshToken == "r2")
            #expect(server.hits("/token") == 1)
            #expect(server.hits("/me") == 2)
            #expect(server.requests(to: "/token").first?.bodyText.contains("refresh_token=r1") == true)
        }
    }

    @Test func aRefusedRefreshIsAnAuthenticationFailure() async throws {
        try await withServer { server in
            routeAccount(on: server, refusesRefresh: true)
            let baseURL = server.baseURL
            let store = InMemoryCredentialStore(Credential(accessToken: "revoked-by-the-server", refreshToken: "r1"))
            let refresher = Provider<TokenRefresh>()
            let provider = Provider<ProfileEndpoint>(plugins: [
                AuthPlugin(store: store) { credential in
                    let response = try await refresher.request(TokenRefresh(baseURL: baseURL, refreshToken: credential.refreshToken ?? ""))
                    let tokens = try response.map(Tokens.self)
                    return Credential(accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokens.expiresIn)
                },
            ])
            let outcome = await loadProfile(provider, baseURL: baseURL)
            #expect(outcome.hasPrefix("Sign in again: "))
            // A refusal of the refresh clears the store.
            #expect(store.credential == nil)
        }
    }

    @Test func accessTokenPluginAddsItsToken() async throws {
        try await withServer { server in
            routeEcho(on: server)
            let provider = Provider<ProfileEndpoint>(plugins: [AccessTokenPlugin { _ in "a-token-that-never-expires" }])
            let response = try await provider.request(ProfileEndpoint(baseURL: server.baseURL))
            #expect(response.bodyText == "Bearer a-token-that-never-expires")
        }
    }

    @Test func credentialsPluginSendsBasicAuthentication() async throws {
        try await withServer { server in
            routeEcho(on: server)
            let credentials = CredentialsPlugin { _ in
                URLCredential(user: "ada", password: "correct horse", persistence: .none)
            }
            let provider = Provider<ProfileEndpoint>(plugins: [credentials])
            let response = try await provider.request(ProfileEndpoint(baseURL: server.baseURL))
            #expect(response.bodyText == "Basic " + Data("ada:correct horse".utf8).base64EncodedString())
        }
    }

    @Test func aFileStoreKeepsTheTokenInAPrivateFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let supportFolder = folder.url
        let store = FileCredentialStore(fileURL: supportFolder.appendingPathComponent("credential.json"))
        try store.update(token: "abc", refreshToken: "r1", expiresIn: 3600)
        let isExpired = store.isExpired(leeway: 30)
        let token = store.accessToken
        #expect(!isExpired)
        #expect(token == "abc")

        let reopened = FileCredentialStore(fileURL: supportFolder.appendingPathComponent("credential.json"))
        #expect(reopened.accessToken == "abc")
        #expect(reopened.refreshToken == "r1")
        let attributes = try FileManager.default.attributesOfItem(atPath: supportFolder.appendingPathComponent("credential.json").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!"\(store.credential!)".contains("abc"))
    }
}
