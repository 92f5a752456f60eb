import Courier
import CourierLogging
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Testing

/// Bodies at debug: cut, binary, pretty JSON; and timing per request.
struct LoggingPluginBodyTests {
    @Test func longBodiesAreCutAtTheLimit() async throws {
        try await withServer { server in
            server.route("/long") { _ in .text(String(repeating: "a", count: 500)) }
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(logger: capture.logger(level: .debug), bodyLimit: 20))
            let provider = Provider<TestTarget>(plugins: [logging])
            let body = String(repeating: "b", count: 300)
            _ = try await provider.request(TestTarget(server.baseURL, path: "/long", method: .post,
                                                      task: .requestData(Data(body.utf8)), headers: ["Content-Type": "text/plain"]))
            let request = try #require(capture.messages.first { $0.hasPrefix("--> POST") && $0.contains("\n") })
            #expect(request.contains(String(repeating: "b", count: 20) + "… (cut at 20 characters; 300 bytes in all)"))
            #expect(!request.contains(String(repeating: "b", count: 21)))
            let response = try #require(capture.messages.first { $0.hasPrefix("<-- POST") && $0.contains("\n") })
            #expect(response.contains(String(repeating: "a", count: 20) + "… (cut at 20 characters; 500 bytes in all)"))
            #expect(!response.contains(String(repeating: "a", count: 21)))
        }
    }

    @Test func binaryBodiesAreAByteCount() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(.init(logger: capture.logger(level: .debug)))])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/bytes/5000"))
            #expect(response.data.count == 5000)
            let details = try #require(capture.messages.first { $0.hasPrefix("<-- GET") && $0.contains("\n") })
            #expect(details.contains("<5000 bytes of binary data>"))
            #expect(capture.messages.contains { $0.hasPrefix("<-- GET") && $0.contains(" 200 (5000 bytes, ") })
        }
    }

    @Test func jsonIsPrettyPrintedWhenAsked() async throws {
        try await withServer { server in
            server.route("/user") { _ in .json(Data(#"{"name":"Ada","roles":["admin","author"]}"#.utf8)) }
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(logger: capture.logger(level: .debug), prettyPrintsJSON: true))
            _ = try await Provider<TestTarget>(plugins: [logging]).request(TestTarget(server.baseURL, path: "/user"))
            let details = try #require(capture.messages.first { $0.hasPrefix("<-- GET") && $0.contains("\n") })
            let body = details.split(separator: "\n").filter { $0.contains("Ada") || $0.contains("admin") }
            #expect(body.count == 2, "one line each for name and a role: \(details)")
            #expect(details.contains(#""name" : "Ada""#))
        }
    }

    @Test func infoHidesDetails() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(logger: capture.logger(level: .info), logsCURL: true))
            _ = try await Provider<TestTarget>(plugins: [logging]).request(TestTarget(server.baseURL, path: "/echo"))
            #expect(capture.messages.count == 2)
            #expect(!capture.messages.contains { $0.contains("\n") || $0.hasPrefix("curl") })
        }
    }

    /// Two requests at once, one held until the other has finished: each
    /// line reports its own time.
    @Test func concurrentRequestsAreTimedSeparately() async throws {
        try await withServer { server in
            let gate = Gate()
            server.route("/slow") { _ in
                await gate.wait()
                return .text("slow")
            }
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(.init(logger: capture.logger(level: .info)))])
            async let slow = provider.request(TestTarget(server.baseURL, path: "/slow"))
            // The fast one starts once the slow one is under way, so a start
            // time shared between requests would be overwritten.
            await server.waitForRequest(to: "/slow")
            _ = try await provider.request(TestTarget(server.baseURL, path: "/delay/0"))
            gate.open()
            _ = try await slow
            let slowMilliseconds = try #require(Self.milliseconds(in: capture.messages, path: "/slow"))
            let fastMilliseconds = try #require(Self.milliseconds(in: capture.messages, path: "/delay/0"))
            #expect(fastMilliseconds <= slowMilliseconds, "the slow call spans the whole fast one")
        }
    }

    @Test func anUnlimitedBodyLimitLogsTheWholeBody() async throws {
        try await withServer { server in
            let capture = LogCapture()
            let configuration = LoggingPlugin.Configuration(logger: capture.logger(level: .debug), bodyLimit: .max)
            #expect(configuration.bodyLimit == LoggingPlugin.Configuration.maximumBodyLimit)
            var raised = configuration
            raised.bodyLimit = .max  // Past the clamp, set after creation.
            let body = String(repeating: "c", count: 3000)
            for configuration in [configuration, raised] {
                let provider = Provider<TestTarget>(plugins: [LoggingPlugin(configuration)])
                _ = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: .post,
                                                          task: .requestData(Data(body.utf8)), headers: ["Content-Type": "text/plain"]))
            }
            let requests = capture.messages.filter { $0.hasPrefix("--> POST") && $0.contains("\n") }
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.contains(body) && !$0.contains("cut at") })
        }
    }

    @Test(arguments: [false, true])
    func secretsInJSONBodiesAreRedactedAtAnyDepth(prettyPrintsJSON: Bool) async throws {
        try await withServer { server in
            server.route("/token") { _ in
                .json(Data(#"{"user":{"name":"Ada","refresh_token":"SECRET-NESTED"},"access_token":"SECRET-ACCESS","n":[{"Token":"SECRET-CASE"}]}"#.utf8))
            }
            let capture = LogCapture()
            let logging = LoggingPlugin(.init(logger: capture.logger(level: .debug), prettyPrintsJSON: prettyPrintsJSON, logsCURL: true))
            let provider = Provider<TestTarget>(plugins: [logging])
            let login = TestTarget(server.baseURL, path: "/token", method: .post,
                                   task: .requestJSONEncodable(["client_secret": "SECRET-CLIENT", "user": "ada"]))
            _ = try await provider.request(login)

            let leaking = capture.messages.filter { $0.contains("SECRET") }
            #expect(leaking.isEmpty, "secrets in: \(leaking)")
            let response = try #require(capture.messages.first { $0.hasPrefix("<-- POST") && $0.contains("\n") })
            #expect(response.contains("Ada"))
            #expect(response.contains("<redacted>"))
            #expect(capture.messages.contains { $0.hasPrefix("curl ") && $0.contains("ada") })
        }
    }

    private static func milliseconds(in messages: [String], path: String) -> Int? {
        guard let line = messages.first(where: { $0.hasPrefix("<-- GET") && $0.contains("\(path) 200") }),
              let open = line.lastIndex(of: ","), let end = line.range(of: " ms)", options: .backwards)
        else { return nil }
        return Int(line[line.index(after: open)..<end.lowerBound].trimmingCharacters(in: .whitespaces))
    }
}
