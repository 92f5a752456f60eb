// The code of Core/Courier.docc/Plugins.md.

import Courier
import CourierAuth
import CourierCache
import CourierGzip
import CourierLogging
import CourierRetry
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Writes down each hook as it runs.
struct HookOrderPlugin: Plugin {
    let name: String
    let record: @Sendable (String) -> Void

    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        record("\(name).prepare")
        return request
    }

    func willSend(_ request: URLRequest, context: RequestContext) async {
        record("\(name).willSend \(context.attempt)")
    }

    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        record("\(name).intercept in")
        let response = try await next(request)
        record("\(name).intercept out")
        return response
    }

    func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        record("\(name).didReceive")
    }

    func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        record("\(name).process")
        return result
    }
}

/// Turns the API's maintenance answer into an error of the app's own.
struct MaintenancePlugin: Plugin {
    struct DownForMaintenance: Error {}

    func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        guard case .success(let response) = result, response.statusCode == 503 else { return result }
        return .failure(.plugin("MaintenancePlugin", DownForMaintenance()))
    }
}

/// Gives every request an `X-Request-ID` header (the caller's, or a fresh one)
/// and prints how long each call took.
struct RequestIDPlugin: Plugin {
    /// Lets one call choose its ID.
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
            print("[\(id)] \(context.target.path) -> \(response.statusCode) in \(start.duration(to: .now))")
            return response
        } catch {
            print("[\(id)] \(context.target.path) failed after \(start.duration(to: .now)): \(error)")
            throw error
        }
    }
}

/// The refresh of the recommended-order snippet: a real app calls its token
/// endpoint here.
func renew(_ credential: Credential) async throws -> Credential {
    Credential(accessToken: "renewed-\(credential.accessToken)", refreshToken: credential.refreshToken, expiresIn: 3600)
}

@Suite struct PluginsSnippets {
    @Test func theHooksRunInTheDocumentedOrder() async throws {
        let log = HookLog()
        let a = HookOrderPlugin(name: "a", record: { log.append($0) })
        let b = HookOrderPlugin(name: "b", record: { log.append($0) })
        let provider = Provider<API>(stubClosure: Provider.immediatelyStub, plugins: [a, b])
        _ = try await provider.request(API(baseURL: URL(string: "https://api.example.com")!))
        #expect(log.all == [
            "a.prepare", "b.prepare",
            "a.intercept in", "b.intercept in", "a.willSend 1", "b.willSend 1", "b.intercept out", "a.intercept out",
            "a.didReceive", "b.didReceive", "a.process", "b.process",
        ])
    }

    @Test func aProcessHookTurnsAResponseIntoAFailure() async throws {
        let provider = Provider<API>(
            endpointClosure: { target in
                Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkResponse(503, Data()))
            },
            stubClosure: Provider.immediatelyStub,
            plugins: [MaintenancePlugin()]
        )
        let error = try await #require(throws: NetworkError.self) {
            try await provider.request(API(baseURL: URL(string: "https://api.example.com")!))
        }
        guard case .plugin(let name, let underlying) = error else {
            Issue.record("expected .plugin, got \(error)")
            return
        }
        #expect(name == "MaintenancePlugin")
        #expect(underlying is MaintenancePlugin.DownForMaintenance)
    }

    @Test func theRecommendedOrderBuildsAndAnswers() async throws {
        try await withServer { server in
            server.route("/feed") { _ in .text("the feed") }
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let credentialsFile = folder.file("credential.json")
            let cacheFolder = folder.file("cache")
            let store = FileCredentialStore(fileURL: credentialsFile)
            let provider = Provider<API>(plugins: [
                LoggingPlugin(),                                                    // 1
                .auth(store, refresh: { credential in try await renew(credential) }), // 2
                RetryPlugin(),                                                      // 3
                CachePlugin(storage: try DiskResponseCache(directory: cacheFolder)), // 4
                GzipPlugin(),                                                       // 5
            ])
            #expect(provider.plugins.count == 5)
            #expect(provider.plugins[0] is LoggingPlugin)
            #expect(provider.plugins[1] is AuthPlugin)
            #expect(provider.plugins[2] is RetryPlugin)
            #expect(provider.plugins[3] is CachePlugin)
            #expect(provider.plugins[4] is GzipPlugin)
            let response = try await provider.request(API(baseURL: server.baseURL, path: "/feed"))
            #expect(response.bodyText == "the feed")
        }
    }

    @Test func aCallerChoosesTheRequestID() async throws {
        try await withServer { server in
            server.route("/hello") { request in .text("hello, \(request.header("X-Request-ID") ?? "stranger")") }
            let hello = API(baseURL: server.baseURL, path: "/hello")
            let provider = Provider<API>(plugins: [RequestIDPlugin()])
            let options = RequestOptions().setting(RequestIDPlugin.ID.self, to: "my-own-id")
            let response = try await provider.request(hello, options: options)
            #expect(response.bodyText == "hello, my-own-id")

            let fresh = try await provider.request(hello)
            #expect(fresh.bodyText.hasPrefix("hello, req-"))
        }
    }
}
