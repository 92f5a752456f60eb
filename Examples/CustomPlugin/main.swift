import Courier
import CourierLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SessionPluginExample

// How to write a Courier plugin: implement only the hooks you need.
// `swift run CustomPlugin` starts a small API on 127.0.0.1 and calls it with
// two plugins: `RequestIDPlugin` below (two hooks), and `SessionPlugin` in
// Plugin/SessionPlugin.swift, which renews an expiring session for many
// concurrent calls at once, as an authentication plugin would, on Courier's
// public API alone.

// MARK: - The plugin

/// Gives every request an `X-Request-ID` header (the caller's, or a fresh one)
/// and prints how long each transmission took.
struct RequestIDPlugin: Plugin {
    /// Lets one call choose its ID: `options.setting(RequestIDPlugin.ID.self, to: "abc")`.
    enum ID: RequestOptionKey {
        static let defaultValue: String? = nil
    }

    /// Runs once per call, before anything is sent.
    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        var request = request
        let id = context.options[ID.self] ?? "req-\(context.id)-\(UUID().uuidString.prefix(8))"
        request.setValue(id, forHTTPHeaderField: "X-Request-ID")
        return request
    }

    /// Wraps the transmission. The start time is a local, never a stored
    /// property: one plugin serves many requests at once.
    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let start = ContinuousClock.now
        let id = request.value(forHTTPHeaderField: "X-Request-ID") ?? "?"
        do {
            let response = try await next(request)
            print("[\(id)] \(request.httpMethod ?? "GET") \(context.target.path) -> \(response.statusCode) in \(start.duration(to: .now))")
            return response
        } catch {
            print("[\(id)] \(context.target.path) failed after \(start.duration(to: .now)): \(error)")
            throw error
        }
    }
}

// MARK: - Using it

/// The example's endpoints, on the server it starts.
struct ExampleAPI: TargetType {
    let baseURL: URL
    let path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

let server = try await LoopbackServer.start()
server.route("/hello") { request in .text("hello, \(request.header("X-Request-ID") ?? "stranger")") }
server.route("/slow") { _ in LoopbackResponse(body: .data(Data("done".utf8)), delay: 0.2) }

// Sessions: /login hands out a new one; /profile accepts only the latest,
// and answers 419 (expired) to any other.
let sessions = Locked((issued: 0, current: ""))
server.route("/login") { _ in
    .text(sessions.withLock { state in
        state.issued += 1
        state.current = "session-\(state.issued)"
        return state.current
    })
}
server.route("/profile") { request in
    request.header("X-Session") == sessions.current.current ? .json(["name": "Ada"]) : .text("expired", status: 419)
}

let hello = ExampleAPI(baseURL: server.baseURL, path: "/hello")
let slow = ExampleAPI(baseURL: server.baseURL, path: "/slow")
let profile = ExampleAPI(baseURL: server.baseURL, path: "/profile")
let login = ExampleAPI(baseURL: server.baseURL, path: "/login")

let loginProvider = Provider<ExampleAPI>()
let session = SessionPlugin(renew: { String(decoding: try await loginProvider.request(login).data, as: UTF8.self) })
let provider = Provider<ExampleAPI>(plugins: [RequestIDPlugin(), session])
do {
    let greeting = try await provider.request(hello)
    print("server says: \(String(decoding: greeting.data, as: UTF8.self))")
    let options = RequestOptions().setting(RequestIDPlugin.ID.self, to: "my-own-id")
    let mine = try await provider.request(hello, options: options)
    print("server says: \(String(decoding: mine.data, as: UTF8.self))")
    // Two at once: each line has its own timing.
    async let first = provider.request(slow)
    async let second = provider.request(hello)
    _ = try await (first, second)

    // The server forgets the session; five calls at once meet the 419, and
    // one renewal serves them all.
    sessions.withLock { $0.current = "rotated-by-the-server" }
    try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<5 { group.addTask { try await provider.request(profile).statusCode } }
        for try await status in group { print("profile: \(status)") }
    }
    print("sessions issued: \(sessions.current.issued), now using \(provider.sessionPlugin?.session ?? "none")")
} catch {
    print("request failed: \(error)")
}
await server.shutdown()
