import Courier
import CourierLogging
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Testing

/// Secrets that reach the logger by the side door: echoed back in a body,
/// nested in a form, in the default names, and in a cURL line that must still
/// paste into a shell.
struct LoggingSecretsTests {
    private static func log(
        _ target: (LoopbackServer) -> TestTarget,
        route: (LoopbackServer) -> Void = { server in server.route("/plain") { _ in .text("ok") } },
        configuration: (Logger) -> LoggingPlugin.Configuration = { LoggingPlugin.Configuration(logger: $0, logsCURL: true) }
    ) async throws -> String {
        try await withServer { server in
            route(server)
            let capture = LogCapture()
            let provider = Provider<TestTarget>(plugins: [LoggingPlugin(configuration(capture.logger(level: .debug)))])
            _ = try? await provider.request(target(server))
            return capture.messages.joined(separator: "\n")
        }
    }

    @Test func headersEchoedInAResponseBodyAreHidden() async throws {
        let text = try await Self.log({ TestTarget($0.baseURL, path: "/get", headers: ["Authorization": "Bearer sekrit-token"]) }, route: { server in
            server.route("/get") { request in
                let echoed = #"{"headers": {"Authorization": "\#(request.header("Authorization") ?? "")", "Cookie": "session=sekrit-cookie", "X-Api-Key": "sekrit-key"}}"#
                return .json(Data(echoed.utf8))
            }
        }, configuration: { LoggingPlugin.Configuration(logger: $0, redactedHeaders: ["X-Api-Key"]) })
        #expect(text.contains("\"headers\""))
        #expect(!text.contains("sekrit"))
    }

    @Test func nestedFormAndQueryFieldsAreHidden() async throws {
        let body = "user%5Bname%5D=ada&user%5Bpassword%5D=sekrit-body&user[password]=sekrit-plain"
        let text = try await Self.log { server in
            TestTarget(URL(string: server.baseURL.absoluteString + "/plain?user%5Bpassword%5D=sekrit-encoded&page=2")!,
                       path: "", method: .post, task: .requestData(Data(body.utf8)),
                       headers: ["Content-Type": "application/x-www-form-urlencoded"])
        }
        #expect(text.contains("page=2"))
        #expect(text.contains("user%5Bname%5D=ada"))
        #expect(!text.contains("sekrit"))
    }

    @Test(arguments: ["id_token", "code", "api_key", "client_secret", "accessToken", "refreshToken", "apiKey", "clientSecret"])
    func theDefaultsHideOAuthAndAPIKeyNames(name: String) async throws {
        let text = try await Self.log { server in
            TestTarget(URL(string: server.baseURL.absoluteString + "/plain?\(name)=sekrit-query")!, path: "", method: .post,
                       task: .requestData(Data(#"{"\#(name)": "sekrit-json"}"#.utf8)), headers: ["Content-Type": "application/json"])
        }
        #expect(text.contains("\(name)=<redacted>"))
        #expect(!text.contains("sekrit"))
    }

    @Test func theCURLLinePastesIntoAShell() async throws {
        let text = try await Self.log { server in
            TestTarget(URL(string: server.baseURL.absoluteString + "/plain?api_key=sekrit&page=2")!, path: "",
                       headers: ["Authorization": "Bearer sekrit"])
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("curl ") })
        #expect(!line.contains("sekrit"))
        // The shell reads it back as the arguments it was written from.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "set -- " + line.dropFirst("curl ".count) + #"; for argument in "$@"; do printf '[%s]\n' "$argument"; done"#]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        shell.waitUntilExit()
        let arguments = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(shell.terminationStatus == 0)
        #expect(arguments.first?.hasSuffix("/plain?api_key=<redacted>&page=2]") == true)
        #expect(arguments.contains("[Authorization: <redacted>]"))
    }

    @Test func errorDescriptionsQuoteNoSecrets() {
        let invalid = NetworkError.requestBuildFailed(RequestBuildFailure.invalidURL("http://api.example.com:99999/x?api_key=sekrit"))
        #expect(!invalid.description.contains("sekrit"))
        #expect(!RequestBuildFailure.invalidURL("not a url?token=sekrit").description.contains("sekrit"))
    }

    @Test func aTokenAsTheURLsUserNameIsHidden() async throws {
        let text = try await Self.log { server in
            TestTarget(URL(string: "http://sekrit-user-token@127.0.0.1:\(server.port)/plain")!, path: "")
        }
        #expect(text.contains("<redacted>@127.0.0.1"))
        #expect(!text.contains("sekrit"))
    }

    @Test func fragmentParametersAreHidden() async throws {
        let text = try await Self.log { server in
            TestTarget(URL(string: server.baseURL.absoluteString + "/plain?page=2#access_token=sekrit-fragment&state=xyz")!, path: "")
        }
        #expect(text.contains("#access_token=<redacted>&state=xyz"))
        #expect(!text.contains("sekrit"))
    }

    @Test func apiKeyHeadersAreHiddenByDefault() async throws {
        let text = try await Self.log({ server in
            TestTarget(server.baseURL, path: "/plain", headers: ["X-Api-Key": "sekrit-1", "Api-Key": "sekrit-2", "X-Auth-Token": "sekrit-3"])
        }, configuration: { LoggingPlugin.Configuration(logger: $0, logsCURL: true) })
        #expect(text.contains("X-Auth-Token: <redacted>"))
        #expect(!text.contains("sekrit"))
    }

    @Test func aSecretWhoseValueIsAnObjectOrArrayIsHiddenWhole() async throws {
        let body = #"{"password": {"old": "sekrit-1", "new": ["sekrit-2", {"x": "sekrit-3"}]}, "token": ["sekrit-4", "sekrit-5"], "user": "ada"}"#
        let text = try await Self.log { server in
            TestTarget(server.baseURL, path: "/plain", method: .post, task: .requestData(Data(body.utf8)),
                       headers: ["Content-Type": "application/json"])
        }
        #expect(text.contains(#""user": "ada""#) || text.contains(#""user":"ada""#))
        #expect(!text.contains("sekrit"))
    }
}
