import Courier
@_spi(Testing) import CourierAuth
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The auth plugin under a flaky network, a wrong clock, a stuck refresh and
/// two providers sharing one account.
@Suite struct AuthHardeningTests {
    struct ClientLibraryError: Error {}

    private static func failingRefresh(with error: @escaping @Sendable () -> any Error) -> AuthPlugin.Refresh {
        { _ in throw error() }
    }

    private static func response(_ status: Int, body: String = "<html>Service Unavailable</html>") -> Response {
        Response(statusCode: status, data: Data(body.utf8))
    }

    /// What a refresh that failed with `error` leaves in the store, and
    /// whether it asked for credentials.
    private static func afterRefreshFailing(with error: @escaping @Sendable () -> any Error) async throws -> (kept: Bool, asked: Int) {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "valid")
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            let asked = Mutex(0)
            let plugin = AuthPlugin(store: store, refresh: failingRefresh(with: error), askForCredentials: {
                asked.withLock { $0 += 1 }
                throw ClientLibraryError()
            })
            let provider = Provider<SecureTarget>(plugins: [plugin])
            _ = try? await provider.request(SecureTarget(baseURL: server.baseURL))
            _ = api
            return (store.credential?.accessToken == "expired", asked.withLock { $0 })
        }
    }

    @Test(arguments: [
        "no connection", "cancelled", "client library", "unmappable 503", "timed out", "408", "429", "500",
        "404", "407", "425", "451", "400 invalid_request",
    ])
    func aPassingFailureNeverSignsTheUserOut(kind: String) async throws {
        let error: @Sendable () -> any Error = switch kind {
        case "404", "407", "425", "451": { NetworkError.statusCode(Self.response(Int(kind) ?? 0)) }
        case "400 invalid_request": { NetworkError.statusCode(Self.response(400, body: #"{"error": "invalid_request"}"#)) }
        case "no connection": { URLError(.notConnectedToInternet) }
        case "cancelled": { CancellationError() }
        case "client library": { ClientLibraryError() }
        case "unmappable 503": { NetworkError.mappingFailed(Self.response(503), ClientLibraryError()) }
        case "timed out": { NetworkError.timedOut(URLError(.timedOut)) }
        case "408": { NetworkError.statusCode(Self.response(408)) }
        case "429": { NetworkError.statusCode(Self.response(429)) }
        default: { NetworkError.statusCode(Self.response(500)) }
        }
        let (kept, asked) = try await Self.afterRefreshFailing(with: error)
        #expect(kept, "a \(kind) refresh failure cleared the store")
        #expect(asked == 0, "a \(kind) refresh failure asked for credentials")
    }

    @Test(arguments: ["400 invalid_grant", "unmappable 400 invalid_grant", "403", "unmappable 401", "refused"])
    func aRefusalSignsTheUserOut(kind: String) async throws {
        let grant = #"{"error":"invalid_grant","error_description":"refresh token revoked"}"#
        let error: @Sendable () -> any Error = switch kind {
        case "400 invalid_grant": { NetworkError.statusCode(Self.response(400, body: grant)) }
        case "unmappable 400 invalid_grant": { NetworkError.mappingFailed(Self.response(400, body: grant), ClientLibraryError()) }
        case "403": { NetworkError.statusCode(Self.response(403)) }
        case "unmappable 401": { NetworkError.mappingFailed(Self.response(401), ClientLibraryError()) }
        default: { AuthPlugin.RefreshRefused(reason: "invalid_grant") }
        }
        let (kept, asked) = try await Self.afterRefreshFailing(with: error)
        #expect(!kept)
        #expect(asked == 1)
    }

    @Test func twoProvidersSharingAStoreRefreshOnce() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let gate = Gate()
            let refreshes = Mutex(0)
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            // A refresh waits until both calls are waiting for one: either
            // both joined one flight, or each started its own.
            let refresh: AuthPlugin.Refresh = { credential in
                refreshes.withLock { $0 += 1 }
                await gate.wait()
                return try await api.refresh()(credential)
            }
            let firstPlugin = AuthPlugin(store: store, refresh: refresh)
            let secondPlugin = AuthPlugin(store: store, refresh: refresh)
            let first = Provider<SecureTarget>(plugins: [firstPlugin])
            let second = Provider<SecureTarget>(plugins: [secondPlugin])
            let target = SecureTarget(baseURL: server.baseURL)
            async let one = first.request(target)
            async let other = second.request(target)
            try await withDeadline {
                while await secondPlugin.waitingRequests < 2, refreshes.withLock({ $0 }) < 2 {
                    await Task.yield()
                }
            }
            gate.open()
            let (a, b) = try await (one, other)
            #expect(a.statusCode == 200)
            #expect(b.statusCode == 200)
            #expect(api.refreshCount == 1)
            #expect(store.credential?.accessToken == "access-1")
        }
    }

    @Test func aClockAheadOfTheServerRefreshesOnceNotOnEveryRequest() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let clock = TestClock()
            clock.setWallClock(by: 86_400) // the device is a day ahead
            let store = InMemoryCredentialStore(Credential(accessToken: "old", refreshToken: "r0", expiresIn: 3_600))
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, configuration: clock.configuration(), refresh: api.refresh())])
            for _ in 0..<8 {
                let status = try await provider.request(SecureTarget(baseURL: server.baseURL)).statusCode
                #expect(status == 200)
            }
            #expect(api.refreshCount == 1)
        }
    }

    @Test func theRefreshWindowIgnoresTheWallClock() async throws {
        try await withServer { server in
            let api = TokenAPI(server)
            api.update { $0.refusesEverything = true }
            let clock = TestClock()
            let store = InMemoryCredentialStore(Credential(accessToken: "t0", refreshToken: "r0"))
            let provider = Provider<SecureTarget>(plugins: [
                AuthPlugin(store: store, configuration: clock.configuration(maximumRefreshes: 2, refreshWindow: 60), refresh: api.refresh()),
            ])
            for _ in 0..<3 { _ = try? await provider.request(SecureTarget(baseURL: server.baseURL)) }
            #expect(api.refreshCount == 2)
            clock.setWallClock(by: 3_600) // the user sets the clock forward: the window does not end
            _ = try? await provider.request(SecureTarget(baseURL: server.baseURL))
            #expect(api.refreshCount == 2)
        }
    }

    @Test func aRefreshThatNeverEndsTimesOutAndKeepsTheCredential() async throws {
        try await withServer { server in
            let never = Gate()
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            let plugin = AuthPlugin(store: store, configuration: TestClock().configuration(refreshTimeout: 0.2)) { credential in
                await never.wait()
                return credential
            }
            let provider = Provider<SecureTarget>(plugins: [plugin])
            let error = try await withDeadline {
                await #expect(throws: NetworkError.self) { try await provider.request(SecureTarget(baseURL: server.baseURL)) }
            }
            guard case .refreshFailed(let inner)? = error?.authFailure, case .timedOut? = inner as? NetworkError else {
                Issue.record("expected refreshFailed(timedOut), got \(String(describing: error))")
                return
            }
            #expect(store.credential?.accessToken == "expired")
            never.open()
        }
    }

    @Test func aSignOutDuringARefreshIsNotUndoneByItsEnd() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let entered = Gate()
            let release = Gate()
            let store = InMemoryCredentialStore(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            let plugin = AuthPlugin(store: store) { credential in
                entered.open()
                await release.wait()
                return try await api.refresh()(credential)
            }
            let provider = Provider<SecureTarget>(plugins: [plugin])
            let call = Task { () async -> NetworkError? in
                do throws(NetworkError) {
                    _ = try await provider.request(SecureTarget(baseURL: server.baseURL))
                    return nil
                } catch {
                    return error
                }
            }
            await entered.wait()
            store.clear() // the user signs out
            release.open()
            let error = await call.value
            guard case .clearedDuringRefresh? = error?.authFailure else {
                Issue.record("expected clearedDuringRefresh, got \(String(describing: error))")
                return
            }
            #expect(store.credential == nil)
        }
    }

    /// The user signs out at the worst moment: after the refresh has
    /// answered, the first time anything reads the store. A plugin that
    /// checked the store and then saved would undo the sign-out with its save;
    /// the check and the save are one step of the store's, so the sign-out
    /// lands before it (and the refresh's answer is dropped) or after it (and
    /// clears it). Either way the user stays signed out.
    @Test(arguments: [false, true])
    func aSignOutBetweenTheRefreshsAnswerAndItsSaveIsNotUndone(onFile: Bool) async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "never-sent")
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let inner: any CredentialStoring = onFile
                ? FileCredentialStore(fileURL: directory.file("credential.json"))
                : InMemoryCredentialStore()
            try inner.save(Credential(accessToken: "expired", refreshToken: "r0", expiresIn: -1))
            let store = SignsOutOnFirstRead(inner)
            let plugin = AuthPlugin(store: store) { credential in
                let renewed = try await api.refresh()(credential)
                store.arm()
                return renewed
            }
            let provider = Provider<SecureTarget>(plugins: [plugin])
            _ = try? await provider.request(SecureTarget(baseURL: server.baseURL))
            #expect(store.signedOut)
            #expect(inner.credential == nil)
            if onFile { #expect(!FileManager.default.fileExists(atPath: directory.file("credential.json").path)) }
        }
    }

    @Test func aCallersOwnAuthorizationIsNeverReplayedWithTheToken() async throws {
        try await withServer { server in
            let api = TokenAPI(server, validToken: "valid")
            let store = InMemoryCredentialStore(Credential(accessToken: "valid", refreshToken: "r0"))
            let provider = Provider<SecureTarget>(plugins: [AuthPlugin(store: store, refresh: api.refresh())])
            let login = SecureTarget(baseURL: server.baseURL, headers: ["Authorization": "Basic dXNlcjp3cm9uZw=="])
            let response = try await provider.request(login)
            #expect(response.statusCode == 401)
            #expect(api.protectedAuthorizations == ["Basic dXNlcjp3cm9uZw=="])
            #expect(api.refreshCount == 0)
        }
    }
}

extension AuthHardeningTests {
    @Test func anInfiniteRefreshWindowIsClampedAndItsErrorPrints() async throws {
        let configuration = AuthPlugin.Configuration(refreshWindow: .infinity, refreshTimeout: .nan)
        #expect(configuration.refreshWindow == 1e9)
        #expect(configuration.refreshTimeout == 60)
        let failure = AuthPlugin.Failure.refreshLimitExceeded(refreshes: 5, seconds: .infinity)
        #expect(failure.description.contains("inf seconds"))
        #expect(AuthPlugin.Failure.refreshLimitExceeded(refreshes: 5, seconds: configuration.refreshWindow).description
            .contains("1000000000 seconds"))
    }
}

/// A store that signs the user out the first time it is read once armed:
/// the moment between a plugin's check of the store and its save.
private final class SignsOutOnFirstRead: CredentialStoring {
    private let inner: any CredentialStoring
    private let state = Mutex((armed: false, signedOut: false))

    init(_ inner: any CredentialStoring) {
        self.inner = inner
    }

    func arm() {
        state.withLock { $0.armed = true }
    }

    var signedOut: Bool { state.withLock { $0.signedOut } }

    var credential: Credential? {
        let credential = inner.credential
        let signsOut = state.withLock { state in
            defer { state.armed = false }
            if state.armed { state.signedOut = true }
            return state.armed
        }
        if signsOut { try? inner.clear() }
        return credential
    }

    func save(_ credential: Credential) throws { try inner.save(credential) }
    func clear() throws { try inner.clear() }
    func replaceCredential(holding accessToken: String?, with credential: Credential?) throws -> Bool {
        try inner.replaceCredential(holding: accessToken, with: credential)
    }
}
