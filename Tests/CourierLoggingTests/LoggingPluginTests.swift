import Courier
import CourierLogging
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Testing

/// What the logging plugin writes, against the loopback server.
struct LoggingPluginTests {
    /// Sends every request twice and returns the second response, as a
    /// retrying plugin would.
    struct ReplayOncePlugin: Plugin {
        func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
            _ = try await next(request)
            return try await next(request)
        }
    }

    @Test func infoLogsOneLinePerRequestAndPerResponse() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(.init(logger: capture.logger(level: .info)))])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/echo"))
            let url = server.url("/echo").absoluteString
            #expect(capture.messages.count == 2)
            #expect(capture.messages.first == "--> GET \(url)")
            let summary = try #require(capture.messages.last)
            #expect(summary.hasPrefix("<-- GET \(url) 200 (\(response.data.count) bytes, "))
            #expect(summary.hasSuffix(" ms)"))
            #expect(capture.lines.allSatisfy { $0.level == .info })
            // Both lines name the call and the attempt, as text a handler writes.
            let requests = capture.lines.map { $0.metadata["courier.request"].map { "\($0)" } }
            #expect(requests.count == 2 && requests[0] != nil && requests[0] == requests[1])
            #expect(capture.lines.map { $0.metadata["courier.attempt"].map { "\($0)" } } == ["1", "1"])
        }
    }

    @Test func theLeadingDotFactoryMakesTheSamePlugin() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let plugins: [any Plugin] = [.logging(.init(logger: capture.logger(level: .info)))]
            _ = try await Provider<TestTarget>(plugins: plugins).request(TestTarget(server.baseURL, path: "/echo"))
            #expect(capture.messages.count == 2)
            #expect(capture.messages.first == "--> GET \(server.url("/echo").absoluteString)")
        }
    }

    @Test func aReplayLogsItsAttemptNumberAndTheCallOneResponseLine() async throws {
        try await withServer { server in
            // Not /status/204: the loopback server sends a body with it, which
            // breaks the next request on the same connection.
            server.route("/empty") { _ in LoopbackResponse(status: 200) }
            let url = server.url("/empty").absoluteString
            // Before and after the replaying plugin: the plugin only observes,
            // so its place changes no line.
            for logsFirst in [true, false] {
                let capture = LogCapture()
                let logging = LoggingPlugin(.init(logger: capture.logger(level: .info)))
                let plugins: [any Plugin] = logsFirst ? [logging, ReplayOncePlugin()] : [ReplayOncePlugin(), logging]
                _ = try await Provider<TestTarget>(plugins: plugins).request(TestTarget(server.baseURL, path: "/empty"))
                try #require(capture.messages.count == 3, "\(capture.messages)")
                #expect(capture.messages[0] == "--> GET \(url)")
                #expect(capture.messages[1] == "--> GET \(url) (attempt 2)")
                #expect(capture.messages[2].hasPrefix("<-- GET \(url) 200 (0 bytes, "))
                #expect(capture.messages[2].hasSuffix(" ms) (attempt 2)"), "the response line says which transmission answered")
            }
        }
    }

    /// Refuses every request in `prepare`: nothing is sent.
    struct RefusingPlugin: Plugin {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "refused before sending" }
        }

        func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
            throw Refusal()
        }
    }

    /// Answers every request itself, as a cache hit does.
    struct AnsweringPlugin: Plugin {
        func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
            Response(statusCode: 200, data: Data("cached".utf8), request: request)
        }
    }

    @Test func aCallThatFailsBeforeItIsSentStillLogsItsOutcome() async throws {
        let capture = LogCapture()
        let logging = LoggingPlugin(.init(logger: capture.logger(level: .info), redactedQueryParameters: ["token"]))
        let provider = Provider<TestTarget>(plugins: [logging, RefusingPlugin()])
        let base = try #require(URL(string: "https://api.example.com/v1?token=SECRET"))
        await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(base, path: "")) }
        // No request line: nothing went out. The response line names the
        // target, as no request was sent, its secrets hidden.
        try #require(capture.lines.count == 1, "\(capture.messages)")
        #expect(capture.lines[0].level == .error)
        #expect(capture.messages[0].hasPrefix("<-- GET https://api.example.com/v1?token=<redacted> failed after "))
        #expect(capture.messages[0].contains("refused before sending"))
    }

    @Test func aCallAnsweredWithoutBeingSentLogsTheRequestItAnswers() async throws {
        let capture = LogCapture()
        let logging = LoggingPlugin(.init(logger: capture.logger(level: .info), redactedQueryParameters: ["token"]))
        let provider = Provider<TestTarget>(plugins: [logging, AnsweringPlugin()])
        let base = try #require(URL(string: "https://api.example.com/v1?token=SECRET"))
        let response = try await provider.request(TestTarget(base, path: ""))
        #expect(String(decoding: response.data, as: UTF8.self) == "cached")
        try #require(capture.messages.count == 1, "\(capture.messages)")
        #expect(capture.messages[0].hasPrefix("<-- GET https://api.example.com/v1?token=<redacted> 200 (6 bytes, "))
    }

    @Test func secretsAreRedactedEverywhereTheCURLLineIncluded() async throws {
        try await withServer { server in
            server.route("/login") { _ in
                .json(Data(#"{"ok":true}"#.utf8), headers: [("Set-Cookie", "session=SECRET-SET-COOKIE"), ("X-Api-Key", "SECRET-ECHOED")])
            }
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(
                logger: capture.logger(level: .debug), logsCURL: true,
                redactedHeaders: ["x-api-key"], redactedQueryParameters: ["token", "password"]
            ))
            let provider = Provider<TestTarget>(plugins: [logging])
            let target = TestTarget(
                server.url("/login?token=SECRET-QUERY&page=2"), path: "", method: .post,
                task: .requestParameters(parameters: ["user": "ada", "password": "SECRET-FORM"], encoding: URLEncoding.httpBody),
                headers: [
                    "Authorization": "Bearer SECRET-TOKEN", "Proxy-Authorization": "Basic SECRET-PROXY",
                    "Cookie": "session=SECRET-COOKIE", "X-Api-Key": "SECRET-KEY",
                ]
            )
            _ = try await provider.request(target)

            #expect(server.requests(to: "/login").first?.header("Authorization") == "Bearer SECRET-TOKEN", "only the log is redacted")
            let leaking = capture.messages.filter { $0.contains("SECRET") }
            #expect(leaking.isEmpty, "secrets in: \(leaking)")
            let curl = try #require(capture.messages.first { $0.hasPrefix("curl ") })
            #expect(curl.contains("'Authorization: <redacted>'"))
            #expect(curl.contains("'Cookie: <redacted>'"))
            #expect(curl.contains("token=<redacted>&page=2"))
            #expect(curl.contains("password=<redacted>"))
            #expect(curl.contains("user=ada"))
            let response = try #require(capture.messages.first { $0.hasPrefix("<-- POST") && $0.contains("\n") })
            #expect(response.contains("Set-Cookie: <redacted>"))
            #expect(response.contains("X-Api-Key: <redacted>"))
        }
    }

    @Test func aFailureIsLoggedWithoutTheSecrets() async throws {
        // Nothing listens on port 1; a port freed by another server could be
        // taken by a test running in parallel.
        let url = try #require(URL(string: "http://127.0.0.1:1/gone?token=SECRET-QUERY"))
        let capture = LogCapture()
        let logging = LoggingPlugin(.init(logger: capture.logger(level: .info), redactedQueryParameters: ["token"]))
        let provider = Provider<TestTarget>(plugins: [logging])
        await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(url, path: "")) }
        let failure = try #require(capture.lines.last)
        #expect(failure.level == .error)
        #expect(failure.message.contains("failed after"))
        #expect(failure.message.contains("token=<redacted>"))
        #expect(!capture.messages.contains { $0.contains("SECRET") })
    }

    @Test func aSecretInAnotherURLOfAnErrorIsRedacted() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(logger: capture.logger(level: .debug)))
            let provider = Provider<TestTarget>(plugins: [logging, FailsWithRedirectURL()])
            await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(server.baseURL, path: "/echo")) }
            let failure = try #require(capture.lines.last)
            #expect(failure.message.contains("https://auth.example.com/callback?state=1&refresh_token=<redacted>"))
            #expect(!capture.messages.contains { $0.contains("SECRET") })
        }
    }
}

/// Fails with an error whose description quotes a URL other than the
/// request's, carrying a refresh token (a redirect's target).
struct FailsWithRedirectURL: Plugin {
    struct RedirectRefused: Error, CustomStringConvertible {
        var description: String { "redirect to https://auth.example.com/callback?state=1&refresh_token=SECRET-REDIRECT refused" }
    }

    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        throw NetworkError.plugin("FailsWithRedirectURL", RedirectRefused())
    }
}
