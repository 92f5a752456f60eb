import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

/// Many requests needing a new token at once: exactly one refresh, and every
/// request waits for it.
@Suite(.hangsFailTheSuite)
struct AuthPluginConcurrencyTests {
    /// A token API that refuses the stored token `revoked` (holding every
    /// refusal until 50 requests have arrived), and the store holding it.
    private func revokedToken(on server: LoopbackServer, refreshFails: Bool = false) -> (TokenAPI, InMemoryCredentialStore) {
        let api = TokenAPI(server)
        api.update {
            $0.refuseGate = 50
            $0.refreshFails = refreshFails
        }
        return (api, InMemoryCredentialStore(Credential(accessToken: "revoked", refreshToken: "r0", expiresIn: 3600)))
    }

    @Test func fiftyRequestsWithAnExpiredTokenShareOneRefresh() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -60))
            let provider = Provider<SecureTarget>(transport: wideTransport(), plugins: [AuthPlugin(store: store, refresh: api.refresh())])

            let results = await concurrently(50, SecureTarget(baseURL: server.baseURL), with: provider)

            #expect(api.refreshCount == 1)
            #expect(results.filter { (try? $0.get().statusCode) == 200 }.count == 50)
            #expect(api.protectedCount == 50)
            #expect(api.protectedAuthorizations.allSatisfy { $0 == "Bearer access-1" })
            #expect(store.accessToken == "access-1")
        }
    }

    @Test func fiftyRequestsRefusedWithARevokedTokenShareOneRefresh() async throws {
        try await withServer { server in
            let (api, store) = revokedToken(on: server)
            let provider = Provider<SecureTarget>(transport: wideTransport(), plugins: [AuthPlugin(store: store, refresh: api.refresh())])

            let results = await concurrently(50, SecureTarget(baseURL: server.baseURL), with: provider)

            #expect(api.refreshCount == 1)
            #expect(results.filter { (try? $0.get().statusCode) == 200 }.count == 50)
            let sent = api.protectedAuthorizations
            #expect(sent.filter { $0 == "Bearer revoked" }.count == 50)
            #expect(sent.filter { $0 == "Bearer access-1" }.count == 50)
        }
    }

    @Test func aFailedRefreshAsksForCredentialsOnceAndEveryRequestSucceeds() async throws {
        try await withServer { server in
            let (api, store) = revokedToken(on: server, refreshFails: true)
            let asked = Mutex(0)
            let plugin = AuthPlugin(store: store, refresh: api.refresh(), askForCredentials: api.login(counting: asked))
            let provider = Provider<SecureTarget>(transport: wideTransport(), plugins: [plugin])

            let results = await concurrently(50, SecureTarget(baseURL: server.baseURL), with: provider)

            #expect(api.refreshCount == 1)
            #expect(asked.withLock { $0 } == 1)
            #expect(api.loginCount == 1)
            #expect(results.filter { (try? $0.get().statusCode) == 200 }.count == 50)
            #expect(store.credential == Credential(accessToken: "access-1", refreshToken: "refresh-access-1",
                                                   expiresAt: store.credential?.expiresAt, issuedAt: store.credential?.issuedAt))
        }
    }

    @Test func aRefreshThatFailsOnTheWayKeepsTheCredentialAndAsksNobody() async throws {
        try await withServer { server in
            let (api, store) = revokedToken(on: server)
            api.update {
                $0.refreshStatus = 503
                $0.refuseGate = 5
            }
            let asked = Mutex(0)
            let plugin = AuthPlugin(store: store, refresh: api.refresh(), askForCredentials: api.login(counting: asked))
            let provider = Provider<SecureTarget>(transport: wideTransport(), plugins: [plugin])

            let results = await concurrently(5, SecureTarget(baseURL: server.baseURL), with: provider)

            let errors = results.compactMap(\.failure)
            #expect(errors.count == 5)
            for error in errors {
                guard case .refreshFailed(let refreshError as NetworkError) = error.authFailure else {
                    Issue.record("expected refreshFailed, got \(error)")
                    continue
                }
                #expect(refreshError.response?.statusCode == 503)
                #expect("\(error)".contains("the stored credential was kept"))
            }
            #expect(asked.withLock { $0 } == 0)
            #expect(api.loginCount == 0)
            #expect(store.accessToken == "revoked")
        }
    }

    @Test func whenAskingForCredentialsFailsTooTheStoreIsClearedAndEveryRequestFails() async throws {
        try await withServer { server in
            let (api, store) = revokedToken(on: server, refreshFails: true)
            let asked = Mutex(0)
            let plugin = AuthPlugin(store: store, refresh: api.refresh()) {
                asked.withLock { $0 += 1 }
                throw SignInCancelled()
            }
            let provider = Provider<SecureTarget>(transport: wideTransport(), plugins: [plugin])

            let results = await concurrently(50, SecureTarget(baseURL: server.baseURL), with: provider)

            #expect(api.refreshCount == 1)
            #expect(asked.withLock { $0 } == 1)
            #expect(store.credential == nil)
            let errors = results.compactMap(\.failure)
            #expect(errors.count == 50)
            for error in errors {
                guard case .credentialsUnavailable(let refreshError?, let askError) = error.authFailure else {
                    Issue.record("expected credentialsUnavailable, got \(error)")
                    continue
                }
                #expect(askError is SignInCancelled)
                #expect((refreshError as? NetworkError)?.response?.statusCode == 400)
                #expect("\(error)".hasPrefix("The plugin AuthPlugin failed: "))
                #expect("\(error)".contains("the stored credential was cleared"))
            }
        }
    }

    @Test func aWaitingRequestThatIsCancelledEndsAtOnceWhileTheRefreshGoesOn() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "stale")
            let started = AsyncStream.makeStream(of: Void.self)
            let release = AsyncStream.makeStream(of: Void.self)
            let store = InMemoryCredentialStore(Credential(accessToken: "old", refreshToken: "r0", expiresIn: -1))
            let refresh = api.refresh()
            let plugin = AuthPlugin(store: store, refresh: { credential in
                started.continuation.yield()
                for await _ in release.stream { break }
                return try await refresh(credential)
            })
            let provider = Provider<SecureTarget>(plugins: [plugin])
            let target = SecureTarget(baseURL: server.baseURL)

            let cancelled = Task { try await provider.request(target) }
            for await _ in started.stream { break }
            cancelled.cancel()
            let cancelledResult = await cancelled.result
            release.continuation.yield()
            let response = try await provider.request(target)

            let cancelledError = try #require(cancelledResult.failure)
            #expect((cancelledError as? NetworkError)?.isCancelled == true)
            #expect(response.statusCode == 200)
            #expect(api.refreshCount == 1)
            #expect(api.protectedAuthorizations == ["Bearer access-1"])
        }
    }
}

struct SignInCancelled: Error {}
