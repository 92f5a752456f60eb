import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

@Suite(.hangsFailTheSuite)
struct AuthPluginTests {
    // MARK: - The header

    @Test(arguments: [
        (AuthorizationType.bearer, "Bearer abc"),
        (.basic, "Basic abc"),
        (.custom("Token"), "Token abc"),
        (.custom(""), "abc"),
    ])
    func addsTheHeaderWithTheTargetsScheme(type: AuthorizationType, expected: String) async throws {
        try await withServer { server in
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: InMemoryCredentialStore(Credential(accessToken: "abc")),
                                                                       refresh: { $0 })])
            let response = try await provider.request(SecureTarget(baseURL: server.baseURL, path: "/echo", authorizationType: type))
            #expect(try Echo(response).header("Authorization") == expected)
        }
    }

    @Test func targetsWithoutAuthorizationTypeGetNoToken() async throws {
        try await withServer { server in
            let store = InMemoryCredentialStore(Credential(accessToken: "abc"))
            // The default configuration, as in Moya: only targets that ask for
            // a token get one.
            let plugin = AuthPlugin(store: store, refresh: { $0 })
            let provider = Provider<MultiTarget>(plugins: [plugin])

            let opted = try await provider.request(.target(SecureTarget(baseURL: server.baseURL, path: "/echo", authorizationType: nil)))
            let plain = try await provider.request(.target(TestTarget(server.baseURL, path: "/echo")))
            let secure = try await provider.request(.target(SecureTarget(baseURL: server.baseURL, path: "/echo")))

            #expect(try Echo(opted).header("Authorization") == nil)
            #expect(try Echo(plain).header("Authorization") == nil)
            #expect(try Echo(secure).header("Authorization") == "Bearer abc")
        }
    }

    @Test func anAuthorizationHeaderTheRequestCarriesIsKept() async throws {
        try await withServer { server in
            let store = InMemoryCredentialStore(Credential(accessToken: "abc"))
            let provider = Provider<SecureTarget>(plugins: [.auth(store, refresh: { $0 })])
            let login = SecureTarget(baseURL: server.baseURL, path: "/echo", headers: ["Authorization": "Basic dXNlcjpwdw=="])

            let response = try await provider.request(login)

            #expect(try Echo(response).header("Authorization") == "Basic dXNlcjpwdw==")
        }
    }

    @Test func withoutACredentialOrAHandlerTheRequestFailsUnsent() async throws {
        try await withServer { server in
            let provider = Provider<SecureTarget>(plugins: [.auth(InMemoryCredentialStore(), refresh: { $0 })])
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(SecureTarget(baseURL: server.baseURL))
            }
            guard case .noCredential = error?.authFailure else {
                Issue.record("expected noCredential, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/protected") == 0)
            #expect("\(error.map { "\($0)" } ?? "")".contains("Save a credential in the store"))
        }
    }

    // MARK: - Proactive refresh

    @Test func refreshesBeforeSendingOnceTheClockPassesExpiryMinusLeeway() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "first")
            let clock = TestClock()
            let store = InMemoryCredentialStore(Credential(accessToken: "first", refreshToken: "r0", expiresIn: 100, now: clock.now))
            let configuration = AuthPlugin.Configuration(leeway: 10, now: { clock.now })
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: configuration, refresh: api.refresh())])
            let target = SecureTarget(baseURL: server.baseURL)

            clock.advance(by: 89)
            let beforeLeeway = try await provider.request(target)
            #expect(beforeLeeway.statusCode == 200)
            #expect(api.refreshCount == 0)

            clock.advance(by: 1)  // 10 seconds before expiry: within the leeway.
            let withinLeeway = try await provider.request(target)
            #expect(withinLeeway.statusCode == 200)
            #expect(api.refreshCount == 1)
            #expect(api.protectedAuthorizations == ["Bearer first", "Bearer access-1"])
        }
    }

    @Test func aTokenThatLivesLessThanTheLeewayIsNotExpiredAtBirth() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "short")
            let clock = TestClock()
            let store = InMemoryCredentialStore(Credential(accessToken: "short", refreshToken: "r0", expiresIn: 20, now: clock.now))
            let configuration = AuthPlugin.Configuration(leeway: 30, now: { clock.now })
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: configuration, refresh: api.refresh())])
            let target = SecureTarget(baseURL: server.baseURL)

            _ = try await provider.request(target)
            #expect(api.refreshCount == 0)

            clock.advance(by: 10)  // Half its life: the leeway is 10 seconds, not 30.
            _ = try await provider.request(target)
            #expect(api.refreshCount == 1)
        }
    }

    // MARK: - Saving the refreshed credential

    @Test func aCredentialClearedDuringTheRefreshIsNotWrittenBack() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            let store = InMemoryCredentialStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let plugin = AuthPlugin(store: store, refresh: { _ in
                store.clear()  // The user signs out while the refresh runs.
                return Credential(accessToken: "access-1", refreshToken: "r1")
            })
            let provider = Provider<SecureTarget>(plugins: [plugin])

            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(SecureTarget(baseURL: server.baseURL))
            }

            guard case .clearedDuringRefresh = error?.authFailure else {
                Issue.record("expected clearedDuringRefresh, got \(String(describing: error))")
                return
            }
            #expect(store.credential == nil)
            #expect(api.protectedCount == 1)
        }
    }

    @Test func aCredentialTheStoreCannotSaveIsUsedAndReported() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            let store = UnwritableStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let reported = Mutex<[any Error]>([])
            let configuration = AuthPlugin.Configuration(onStoreFailure: { error in reported.withLock { $0.append(error) } })
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: configuration, refresh: api.refresh())])
            let target = SecureTarget(baseURL: server.baseURL)

            let first = try await provider.request(target)
            let second = try await provider.request(target)

            #expect(first.statusCode == 200)
            #expect(second.statusCode == 200)
            #expect(api.refreshCount == 1)
            #expect(api.protectedAuthorizations == ["Bearer t0", "Bearer access-1", "Bearer access-1"])
            #expect(reported.withLock { $0.count } == 1)
            #expect(reported.withLock { $0.first } is UnwritableStore.DiskFull)
            #expect(store.accessToken == "t0")
        }
    }

    @Test func aRefreshedCredentialIsSavedInTheFileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CourierAuthTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credential.json")
        try await withServer { server in
            let api = TokenAPI(server)
            let store = FileCredentialStore(fileURL: file)
            try store.update(token: "revoked", refreshToken: "r0")
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, refresh: api.refresh())])

            let response = try await provider.request(SecureTarget(baseURL: server.baseURL))

            #expect(response.statusCode == 200)
            #expect(FileCredentialStore(fileURL: file).accessToken == "access-1")
            #expect(server.requests(to: "/token/refresh").first?.bodyText == "r0")
        }
    }

    // MARK: - No loops

    @Test func aReplayRefusedAgainFails() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            api.update { $0.refusesEverything = true }
            let store = InMemoryCredentialStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, refresh: api.refresh())])

            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(SecureTarget(baseURL: server.baseURL))
            }
            guard case .refusedAfterRefresh(401) = error?.authFailure else {
                Issue.record("expected refusedAfterRefresh, got \(String(describing: error))")
                return
            }
            #expect(api.refreshCount == 1)
            #expect(api.protectedCount == 2)
        }
    }

    @Test func aServerThatRefusesForeverStopsAtTheRefreshWindow() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            api.update { $0.refusesEverything = true }
            let clock = TestClock()
            let store = InMemoryCredentialStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let configuration = clock.configuration(maximumRefreshes: 3, refreshWindow: 60)
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: configuration, refresh: api.refresh())])
            let target = SecureTarget(baseURL: server.baseURL)

            var failures: [AuthPlugin.Failure?] = []
            for _ in 0..<10 {
                do throws(NetworkError) {
                    _ = try await provider.request(target)
                } catch {
                    failures.append(error.authFailure)
                }
            }
            #expect(api.refreshCount == 3)
            #expect(failures.count == 10)
            #expect(failures.prefix(3).allSatisfy { if case .refusedAfterRefresh = $0 { true } else { false } })
            #expect(failures.dropFirst(3).allSatisfy { if case .refreshLimitExceeded(3, 60) = $0 { true } else { false } })

            clock.advance(by: 60)
            await #expect(throws: NetworkError.self) { try await provider.request(target) }
            #expect(api.refreshCount == 4)
        }
    }

    @Test func fiftyConcurrentRequestsToAServerThatRefusesForeverAllEnd() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            api.update { $0.refusesEverything = true }
            let store = InMemoryCredentialStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let configuration = AuthPlugin.Configuration(maximumRefreshes: 2, refreshWindow: 3600)
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: configuration, refresh: api.refresh())])

            let results = await concurrently(50, SecureTarget(baseURL: server.baseURL), with: provider)

            #expect(results.allSatisfy { $0.failure?.authFailure != nil })
            #expect(api.refreshCount <= 2)
        }
    }

    // MARK: - Refreshing through the same provider

    @Test func theRefreshClosureMayCallTheSameProvider() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            let shared = Mutex<Provider<MultiTarget>?>(nil)
            // The refresh target is a plain TestTarget, so the configured `.bearer`
            // applies to it: only the plugin's own marking keeps it from
            // waiting for the refresh it is part of.
            let plugin = AuthPlugin(store: store, configuration: .init(defaultAuthorizationType: .bearer), refresh: { credential in
                guard let provider = shared.withLock({ $0 }) else { throw SignInCancelled() }
                return try await TokenAPI.fetchCredential(.target(api.refreshTarget(credential)), with: provider)
            })
            let provider = Provider<MultiTarget>(transport: wideTransport(), plugins: [plugin])
            shared.withLock { $0 = provider }

            let results = await concurrently(10, MultiTarget(SecureTarget(baseURL: server.baseURL)), with: provider)

            #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 })
            #expect(api.refreshCount == 1)
            #expect(server.requests(to: "/token/refresh").first?.header("Authorization") == nil)
            #expect(server.requests(to: "/token/refresh").first?.bodyText == "r0")
        }
    }
}
