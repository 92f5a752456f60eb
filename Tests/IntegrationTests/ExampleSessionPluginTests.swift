import Courier
import CourierTestSupport
import Foundation
import SessionPluginExample
import Testing

/// The example plugin of `swift run CustomPlugin`, written on Courier's
/// public API alone, does what an authentication plugin must: one renewal
/// for many calls, no renewal for an answer from another origin, and its own
/// errors.
@Suite struct ExampleSessionPluginTests {
    struct API: TargetType {
        let baseURL: URL
        let path: String
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .successCodes }
    }

    /// Counts the renewal events each call recorded.
    struct EventCounter: Plugin {
        let renewals = Locked(0)
        func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
            let count = context.events.filter { $0.name == .sessionRenewal }.count
            renewals.withLock { $0 += count }
        }
    }

    /// A server whose `/login` issues `session-N` and whose `/profile`
    /// accepts only the latest session, answering 419 to any other.
    final class SessionServer: Sendable {
        let server: LoopbackServer
        let state = Locked((issued: 0, current: "", refuseLogins: false))

        init() async throws {
            server = try await LoopbackServer.start()
            server.route("/login") { [state] _ in
                state.withLock { state in
                    if state.refuseLogins { return .text("no", status: 403) }
                    state.issued += 1
                    state.current = "session-\(state.issued)"
                    return .text(state.current)
                }
            }
            server.route("/profile") { [state] request in
                request.header("X-Session") == state.current.current ? .text("Ada") : .text("expired", status: 419)
            }
        }

        func plugin() -> SessionPlugin {
            let login = API(baseURL: server.baseURL, path: "/login")
            let provider = Provider<API>()
            return SessionPlugin(renew: { String(decoding: try await provider.request(login).data, as: UTF8.self) }, log: { _ in })
        }
    }

    @Test func callsThatMeetAnExpiredSessionTogetherShareOneRenewal() async throws {
        let sessions = try await SessionServer()
        defer { Task { await sessions.server.shutdown() } }
        let counter = EventCounter()
        let provider = Provider<API>(plugins: [counter, sessions.plugin()])
        let profile = API(baseURL: sessions.server.baseURL, path: "/profile")

        #expect(try await provider.request(profile).data == Data("Ada".utf8))
        sessions.state.withLock { $0.current = "rotated" }
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 { group.addTask { try await provider.request(profile).data } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(bodies == Array(repeating: Data("Ada".utf8), count: 8))
        #expect(sessions.state.current.issued == 2, "one login at start, one renewal for all eight calls")
        #expect(counter.renewals.current == 8)
        #expect(provider.sessionPlugin?.session == "session-2")
    }

    @Test func aRefusedRenewalIsThePluginsOwnError() async throws {
        let sessions = try await SessionServer()
        defer { Task { await sessions.server.shutdown() } }
        sessions.state.withLock { $0.refuseLogins = true }
        let provider = Provider<API>(plugins: [sessions.plugin()])

        await #expect {
            try await provider.request(API(baseURL: sessions.server.baseURL, path: "/profile"))
        } throws: { error in
            guard case .plugin("SessionPlugin", let failure as SessionPlugin.Failure) = error as? NetworkError else { return false }
            return failure == .renewalRefused(statusCode: 403)
        }
    }

    @Test func anExpiryFromAnotherOriginRenewsNothing() async throws {
        let sessions = try await SessionServer()
        let elsewhere = try await SessionServer()
        defer { Task { await sessions.server.shutdown(); await elsewhere.server.shutdown() } }
        let provider = Provider<API>(plugins: [sessions.plugin()])
        let away = elsewhere.server.baseURL.appendingPathComponent("profile").absoluteString
        sessions.server.route("/moved") { _ in LoopbackResponse(status: 302, headers: [("Location", away)]) }

        await #expect {
            try await provider.request(API(baseURL: sessions.server.baseURL, path: "/moved"))
        } throws: { error in
            guard case .plugin("SessionPlugin", let failure as SessionPlugin.Failure) = error as? NetworkError else { return false }
            return failure == .expired
        }
        #expect(sessions.state.current.issued == 1, "only the first session; the other origin's 419 renews nothing")
    }

    @Test func aCallCanSkipThePlugin() async throws {
        let sessions = try await SessionServer()
        defer { Task { await sessions.server.shutdown() } }
        let provider = Provider<API>(plugins: [sessions.plugin()])
        let options = RequestOptions().setting(SessionPlugin.Skip.self, to: true)

        await #expect(throws: NetworkError.self) {
            try await provider.request(API(baseURL: sessions.server.baseURL, path: "/profile"), options: options)
        }
        #expect(sessions.state.current.issued == 0)
        #expect(sessions.server.requests.last?.header("X-Session") == nil)
    }
}
