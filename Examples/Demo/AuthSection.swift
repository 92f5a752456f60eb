import Courier
import CourierAuth
import CourierLoopback
import Foundation

/// A token that expires and is refreshed before sending; a token the server
/// revoked, refreshed once for three requests refused together; and what the
/// caller sees when even the refresh token is refused.
func runAuthSection(_ demo: DemoContext) async {
    demo.section("Auth: a token that expires and is refreshed")
    guard let server = demo.server else {
        demo.say("(this part needs the in-process server: its token routes are registered there)")
        return
    }
    let tokens = AuthDemoTokens()
    tokens.install(on: server)

    let clock = AuthDemoClock()
    let store = InMemoryCredentialStore()
    let plain = Provider<AuthDemoAPI>()
    let auth = AuthPlugin(
        store: store,
        configuration: AuthPlugin.Configuration(leeway: 10, now: { clock.now }),
        refresh: { credential in
            demo.say("refreshing: POST /auth/refresh with the refresh token")
            let refresh = AuthDemoAPI(baseURL: demo.baseURL, route: .refresh(credential.refreshToken ?? ""))
            return try await AuthDemoAPI.credential(from: plain.request(refresh), now: clock.now)
        }
    )
    let provider = Provider<AuthDemoAPI>(plugins: [auth])

    await demo.attempt("sign in") {
        let login = AuthDemoAPI(baseURL: demo.baseURL, route: .login)
        try store.save(AuthDemoAPI.credential(from: await plain.request(login), now: clock.now))
        demo.say("signed in: \(store.credential.map { "\($0)" } ?? "nothing")")
        try await profile(provider, demo)

        demo.say("two minutes pass; the token expired a minute ago")
        clock.advance(by: 120)
        try await profile(provider, demo)
        demo.say(demo.serverHits("/auth/refresh") + ", and no request was refused on the way")

        demo.say("the server revokes the token; three requests go out at once")
        tokens.revokeAll()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { try await profile(provider, demo) }
            }
            try await group.waitForAll()
        }
        demo.say(demo.serverHits("/auth/refresh") + ": one more refresh, shared by the three refused requests")

        demo.say("now the server refuses the refresh token too, and there is no sign-in handler")
        tokens.revokeAll(includingRefreshTokens: true)
    }
    await demo.attempt("GET /auth/profile") {
        try await profile(provider, demo)
    }
    demo.say("the store is now empty: \(store.credential == nil)")
}

private func profile(_ provider: Provider<AuthDemoAPI>, _ demo: DemoContext) async throws {
    let response = try await provider.request(AuthDemoAPI(baseURL: demo.baseURL, route: .profile))
    demo.say("GET /auth/profile -> \(response.statusCode) \(String(decoding: response.data, as: UTF8.self))")
}

// MARK: - The API

private struct AuthDemoAPI: TargetType, AccessTokenAuthorizable {
    enum Route {
        case login
        case refresh(String)
        case profile
    }

    let baseURL: URL
    let route: Route

    var path: String {
        switch route {
        case .login: "/auth/login"
        case .refresh: "/auth/refresh"
        case .profile: "/auth/profile"
        }
    }
    var method: HTTPMethod {
        switch route {
        case .login, .refresh: .post
        case .profile: .get
        }
    }
    var task: RequestTask {
        switch route {
        case .login, .profile: .requestPlain
        case .refresh(let token): .requestData(Data(token.utf8))
        }
    }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
    var authorizationType: AuthorizationType? {
        switch route {
        case .login, .refresh: nil
        case .profile: .bearer
        }
    }

    static func credential(from response: Response, now: Date) throws -> Credential {
        let issued = try JSONDecoder().decode([String: String].self, from: response.data)
        return Credential(accessToken: issued["access"] ?? "", refreshToken: issued["refresh"], expiresIn: 60, now: now)
    }
}

// MARK: - The server side

/// The demo server's token state: which access and refresh tokens it accepts.
private final class AuthDemoTokens: Sendable {
    private let state = AuthDemoLock((issued: 0, access: Set<String>(), refresh: Set<String>()))

    func install(on server: LoopbackServer) {
        server.route("/auth/login") { [self] _ in issue() }
        server.route("/auth/refresh") { [self] request in
            guard state.withLock({ $0.refresh.contains(request.bodyText) }) else {
                return .text("refresh token refused", status: 400)
            }
            return issue()
        }
        server.route("/auth/profile") { [self] request in
            let token = request.header("Authorization")?.replacingOccurrences(of: "Bearer ", with: "") ?? ""
            guard state.withLock({ $0.access.contains(token) }) else { return .text("token refused", status: 401) }
            return .text("Ada Lovelace, seen with token no. \(token.split(separator: "-").last ?? "?")")
        }
    }

    func revokeAll(includingRefreshTokens: Bool = false) {
        state.withLock { state in
            state.access.removeAll()
            if includingRefreshTokens { state.refresh.removeAll() }
        }
    }

    private func issue() -> LoopbackResponse {
        let (access, refresh) = state.withLock { state in
            state.issued += 1
            let tokens = ("access-\(state.issued)", "refresh-\(state.issued)")
            state.access.insert(tokens.0)
            state.refresh.insert(tokens.1)
            return tokens
        }
        return .json(["access": access, "refresh": refresh])
    }
}

/// A clock the demo moves forward instead of waiting.
private final class AuthDemoClock: Sendable {
    private let current = AuthDemoLock(Date())

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

private final class AuthDemoLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
