import Courier
import CourierLoopback
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How to write a Courier plugin: implement only the hooks you need.
// `swift run CustomPlugin` starts a small API on 127.0.0.1 and calls it.

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
let hello = ExampleAPI(baseURL: server.baseURL, path: "/hello")
let slow = ExampleAPI(baseURL: server.baseURL, path: "/slow")

let provider = Provider<ExampleAPI>(plugins: [RequestIDPlugin()])
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
} catch {
    print("request failed: \(error)")
}
await server.shutdown()
