import Courier
import CourierAuth
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A token API on a loopback server, with the routes a test needs:
/// `/protected` (200 with the valid token, 401 otherwise), `/token/refresh`
/// (POST the refresh token, get a new token) and `/login`.
///
/// `refuseGate` makes `/protected` hold every refusal until that many requests
/// have arrived, so a test knows that all of them were sent with the old token
/// before any 401 comes back.
final class TokenAPI: Sendable {
    struct State {
        var validToken: String?
        var issued = 0
        var refreshFails = false
        /// When set, `/token/refresh` answers with this status (a 503: the
        /// server is down) instead of issuing a token.
        var refreshStatus: Int?
        var refusesEverything = false
        var refuseGate = 0
    }

    struct Issued: Codable {
        let accessToken: String
        let refreshToken: String
        let expiresIn: Double
    }

    let server: LoopbackServer
    let state: Mutex<State>

    init(_ server: LoopbackServer, validToken: String? = nil) {
        self.server = server
        self.state = Mutex(State(validToken: validToken))
        install()
    }

    var refreshCount: Int { server.hits("/token/refresh") }
    var loginCount: Int { server.hits("/login") }
    var protectedCount: Int { server.hits("/protected") }

    /// The `Authorization` header of every request to `/protected`, in order.
    var protectedAuthorizations: [String?] {
        server.requests(to: "/protected").map { $0.header("Authorization") }
    }

    func update(_ body: (inout State) -> Void) {
        state.withLock(body)
    }

    // MARK: - Routes

    private func install() {
        server.route("/protected") { [self] request in
            let snapshot = state.withLock { $0 }
            if !snapshot.refusesEverything, let valid = snapshot.validToken, request.header("Authorization") == "Bearer \(valid)" {
                return .text("ok")
            }
            if snapshot.refuseGate > 0 {
                await server.waitForRequest(to: "/protected", count: snapshot.refuseGate)
            }
            return .text("token refused", status: 401)
        }
        server.route("/token/refresh") { [self] _ in
            let snapshot = state.withLock { $0 }
            if let status = snapshot.refreshStatus {
                return .text("try again later", status: status)
            }
            guard !snapshot.refreshFails else {
                // As an OAuth server says it (RFC 6749, 5.2): only this 400 signs out.
                return .json(["error": "invalid_grant"], status: 400)
            }
            return issue()
        }
        server.route("/login") { [self] _ in issue() }
    }

    private func issue() -> LoopbackResponse {
        let token = state.withLock { state in
            state.issued += 1
            state.validToken = "access-\(state.issued)"
            return state.validToken ?? ""
        }
        return .json(Issued(accessToken: token, refreshToken: "refresh-\(token)", expiresIn: 3600))
    }

    // MARK: - Client side

    /// Calls `/token/refresh` (or `/login`) through `provider`, and makes a
    /// credential of the answer.
    static func fetchCredential<Target: TargetType>(_ target: Target, with provider: Provider<Target>) async throws -> Credential {
        let response = try await provider.request(target)
        guard response.statusCode == 200 else {
            throw NetworkError.statusCode(response)
        }
        let issued = try JSONDecoder().decode(Issued.self, from: response.data)
        return Credential(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresIn: issued.expiresIn)
    }

    /// The refresh target: POST `/token/refresh` with the refresh token as
    /// the body. A plain `TestTarget`, so the plugin's default authorization
    /// type applies to it.
    func refreshTarget(_ credential: Credential) -> TestTarget {
        TestTarget(server.baseURL, path: "/token/refresh", method: .post, task: .requestData(Data((credential.refreshToken ?? "").utf8)))
    }

    var loginTarget: TestTarget {
        TestTarget(server.baseURL, path: "/login", method: .post)
    }

    /// A refresh closure that calls `/token/refresh` through a provider
    /// without plugins.
    func refresh() -> AuthPlugin.Refresh {
        { credential in try await TokenAPI.fetchCredential(self.refreshTarget(credential), with: Provider<TestTarget>()) }
    }

    /// An ask-for-credentials closure that signs in at `/login` and counts
    /// its calls in `count`.
    func login(counting count: Mutex<Int>) -> AuthPlugin.AskForCredentials {
        {
            count.withLock { $0 += 1 }
            return try await TokenAPI.fetchCredential(self.loginTarget, with: Provider<TestTarget>())
        }
    }
}

/// A target that needs the token (or says which scheme it wants).
struct SecureTarget: TargetType, AccessTokenAuthorizable {
    var baseURL: URL
    var path: String = "/protected"
    var authorizationType: AuthorizationType? = .bearer
    var headers: [String: String]?
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
}

/// A store that holds a credential but cannot save a new one (a full disk).
final class UnwritableStore: CredentialStoring {
    struct DiskFull: Error {}

    private let stored: Mutex<Credential?>

    init(_ credential: Credential) {
        stored = Mutex(credential)
    }

    var credential: Credential? { stored.withLock { $0 } }

    func save(_ credential: Credential) throws {
        throw DiskFull()
    }

    func clear() {
        stored.withLock { $0 = nil }
    }
}

/// A clock that moves only when a test moves it: a wall clock, and an uptime
/// that `advance` moves along with it (setting the wall clock does not).
final class TestClock: Sendable {
    private let current: Mutex<(now: Date, uptime: TimeInterval)>

    init(_ start: Date = Date()) {
        current = Mutex((start, 1000))
    }

    var now: Date { current.withLock { $0.now } }
    var uptime: TimeInterval { current.withLock { $0.uptime } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = ($0.now.addingTimeInterval(seconds), $0.uptime + seconds) }
    }

    /// Moves the wall clock only, as a user changing the device's time does.
    func setWallClock(by seconds: TimeInterval) {
        current.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// A plugin configuration on this clock.
    func configuration(
        maximumRefreshes: Int = 5, refreshWindow: TimeInterval = 30, refreshTimeout: TimeInterval = 60
    ) -> AuthPlugin.Configuration {
        AuthPlugin.Configuration(maximumRefreshes: maximumRefreshes, refreshWindow: refreshWindow, refreshTimeout: refreshTimeout,
                                 now: { self.now }, uptime: { self.uptime })
    }
}

extension NetworkError {
    /// The plugin's reason: the public `authenticationFailure`, by the name
    /// these tests have always used.
    var authFailure: AuthPlugin.Failure? { authenticationFailure }
}

/// Sends `count` requests for `target` at once and returns each result, in no
/// particular order.
func concurrently<Target: TargetType>(
    _ count: Int, _ target: Target, with provider: Provider<Target>
) async -> [Result<Response, NetworkError>] {
    await withTaskGroup(of: Result<Response, NetworkError>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do throws(NetworkError) {
                    return .success(try await provider.request(target))
                } catch {
                    return .failure(error)
                }
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

/// A transport that lets 64 connections per host run at once, so 50
/// concurrent requests are all in flight together.
func wideTransport() -> URLSessionTransport {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 64
    return URLSessionTransport(sessionConfiguration: configuration)
}

extension Result {
    /// The error, or `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
