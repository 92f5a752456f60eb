import Courier
import CourierTestSupport
import Foundation
import Testing

/// The order of the hooks, and what each may do.
@Suite struct PipelineTests {
    @Test func hooksRunInTheDesignedOrder() async throws {
        try await withServer { server in
            let log = HookLog()
            let provider = Provider<TestTarget>(plugins: [RecordingPlugin("a", log: log), RecordingPlugin("b", log: log)])
            _ = try await provider.request(TestTarget(server.baseURL))
            #expect(log.all == [
                "a.prepare", "b.prepare",
                "a.intercept>", "b.intercept>",
                "a.willSend#1", "b.willSend#1",
                "b.intercept<", "a.intercept<",
                "a.didReceive", "b.didReceive",
                "a.process", "b.process",
            ])
            let request = try #require(server.requests(to: "/echo").last)
            #expect(request.headerValues("X-Prepared-By").joined(separator: ",") == "a,b")
        }
    }

    @Test func anInterceptorCanAnswerWithoutTheNetwork() async throws {
        struct Canned: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                Response(statusCode: 203, data: Data("canned".utf8), request: request)
            }
        }
        try await withServer { server in
            let log = HookLog()
            let provider = Provider<TestTarget>(plugins: [Canned(), RecordingPlugin("r", log: log)])
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(response.statusCode == 203)
            #expect(String(decoding: response.data, as: UTF8.self) == "canned")
            #expect(server.hits("/echo") == 0)
            #expect(!log.all.contains { $0.hasPrefix("r.willSend") })
            #expect(log.all.contains("r.didReceive"))
        }
    }

    @Test func anInterceptorCanReplayAndEachTransmissionRunsWillSend() async throws {
        struct ReplayOnce: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                _ = try await next(request)
                var replay = request
                replay.setValue("2", forHTTPHeaderField: "X-Try")
                return try await next(replay)
            }
        }
        try await withServer { server in
            let log = HookLog()
            let provider = Provider<TestTarget>(plugins: [ReplayOnce(), RecordingPlugin("r", log: log)])
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(server.hits("/echo") == 2)
            #expect(log.all.filter { $0.hasPrefix("r.willSend") } == ["r.willSend#1", "r.willSend#2"])
            #expect(try Echo(response).header("X-Try") == "2")
            #expect(log.all.filter { $0 == "r.didReceive" }.count == 1)
        }
    }

    @Test func aPluginErrorIsWrappedAndNamesThePlugin() async throws {
        struct Refuser: Plugin {
            struct NoToken: Error, CustomStringConvertible { var description: String { "no token available" } }
            func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest { throw NoToken() }
        }
        try await withServer { server in
            let log = HookLog()
            let provider = Provider<TestTarget>(plugins: [RecordingPlugin("r", log: log), Refuser()])
            let error = await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(server.baseURL)) }
            guard case .plugin(let name, let underlying) = error else {
                Issue.record("expected .plugin, got \(String(describing: error))")
                return
            }
            #expect(name == "Refuser")
            #expect(underlying is Refuser.NoToken)
            #expect("\(error!)" == "The plugin Refuser failed: no token available.")
            #expect(server.hits("/echo") == 0)
            #expect(log.all.contains("r.didReceive"))
        }
    }

    @Test func processCanTurnASuccessIntoADomainError() async throws {
        struct Maintenance: Error {}
        struct MaintenanceMode: Plugin {
            func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
                guard case .success(let response) = result, response.value(forHTTPHeaderField: "X-Maintenance") != nil else { return result }
                return .failure(.plugin("MaintenanceMode", Maintenance()))
            }
        }
        try await withServer { server in
            server.route("/maintenance") { _ in .text("later", headers: [("X-Maintenance", "1")]) }
            let provider = Provider<TestTarget>(plugins: [MaintenanceMode()])
            await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(server.baseURL, path: "/maintenance")) }
            _ = try await provider.request(TestTarget(server.baseURL))
        }
    }

    /// The default endpoint keeps the `URL` it was made from, so the request
    /// is not parsed again from the string: it must still be the request the
    /// string gives, for every kind of base URL and path.
    @Test(arguments: [
        ("https://api.example.com", "/users/1"),
        ("https://api.example.com/v2/", "users"),
        ("http://127.0.0.1:8080/a%20b", "/c d/é?x=1#frag"),
        ("https://API.Example.com.", ""),
        ("http://[::1]:9/base", "/percent%2Fslash"),
    ])
    func theDefaultEndpointBuildsTheRequestItsURLStringDoes(base: String, path: String) throws {
        let target = try TestTarget(#require(URL(string: base)), path: path)
        let endpoint = Provider<TestTarget>.defaultEndpointMapping(for: target)
        let reparsed = Endpoint(url: endpoint.url, sampleResponseClosure: endpoint.sampleResponseClosure,
                                method: endpoint.method, task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
        let copied = endpoint.adding(newHTTPHeaderFields: ["X-A": "1"]).replacing(timeout: 5)
        #expect(try endpoint.urlRequest().url?.absoluteString == reparsed.urlRequest().url?.absoluteString)
        #expect(try copied.urlRequest().url?.absoluteString == reparsed.urlRequest().url?.absoluteString)
        #expect(endpoint == reparsed)
    }

    /// The default endpoint joins base URL and path without Foundation's
    /// `appendingPathComponent` when nothing needs encoding, and keeps the
    /// URLs it joined: for every base and path, plain or not, joined or
    /// kept, the URL must be the one it would give.
    @Test func theDefaultEndpointJoinsBaseAndPathAsAppendingPathComponentDoes() throws {
        let bases = ["http://h", "http://h/", "https://h/api", "http://h/api/", "HTTPS://u:p@H:8080/a/b", "http://h//",
                     "http://127.0.0.1:1", "http://h/a%20b", "http://[::1]:80/x", "http://h/a;p", "http://h/api?q=1",
                     "http://h/#f", "ws://h/a", "http:h", "http://", "HTTPS://", "http:///x", "http://:80/"]
        var paths = ["json", "/json", "json/", "/json/", "a/b", "a//b", "//a", "/", "//", ".", "..", "a/../b", "./a", "~x",
                     "a b", "ä", "a?b", "a#b", "a%20b", "a;b", ":a", "a:b", "@", "a/.", "/.."]
        // And random paths of the characters that are joined as they are.
        var generator = SeededGenerator(seed: 15)
        let plain = Array("abXY09-_.~/")
        for _ in 0..<300 {
            paths.append(String((0..<Int.random(in: 1...8, using: &generator)).map { _ in plain.randomElement(using: &generator)! }))
        }
        // Each pair twice, the second time from the joined URLs kept (which
        // all the pairs overflow and empty several times).
        for base in bases {
            let baseURL = try #require(URL(string: base))
            for path in paths {
                let expected = baseURL.appendingPathComponent(path).absoluteURL
                for _ in 0..<2 {
                    let endpoint = Provider<TestTarget>.defaultEndpointMapping(for: TestTarget(baseURL, path: path))
                    #expect(endpoint.url == expected.absoluteString, "\(base) + \(path)")
                    if expected.host?.isEmpty == false {
                        #expect(try endpoint.urlRequest().url == expected, "\(base) + \(path)")
                    }
                }
            }
        }
    }

    /// The usual URL's scheme and host are told from its string without
    /// Foundation parsing them again; every URL must still be accepted
    /// exactly when it has a scheme and a host that decodes.
    @Test func anEndpointAcceptsExactlyTheURLsWithASchemeAndAHostThatDecodes() {
        var urls = ["http://h", "http://h/", "https://a.b-c.d:8080/x?y#z", "HTTP://H:1", "hTTpS://h?q", "http://h#f",
                    "http://h:/", "http://:80/", "http:///x", "http://u:p@h/", "http://[::1]:9/", "http://%FF/",
                    "http://h%41/", "http://%41/", "http://é.com/", "http://h_h/", "ftp://h/", "http:h", "http:/h",
                    "http://h:8a/", "http://-/", "http://./", "https://h:99999/", "httpx://h/", "//h/x", "h/x"]
        var generator = SeededGenerator(seed: 11)
        let pieces = ["h", "H", "1", ".", "-", ":", "8", "@", "[", "]", "%", "%41", "?", "#", "/", "_", "é", " "]
        for _ in 0..<400 {
            let authority = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            urls.append(["http://", "https://", "HTTP://"].randomElement(using: &generator)! + authority.joined())
        }
        for string in urls {
            guard let url = URL(string: string) else { continue }
            let host = url.host(percentEncoded: true) ?? ""
            let hasSchemeAndHost = url.scheme?.isEmpty == false && !host.isEmpty
                && (!host.contains("%") || url.host(percentEncoded: false) != nil)
            let endpoint = Endpoint(url: string, sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
                                    task: .requestPlain, httpHeaderFields: nil)
            let accepted = (try? endpoint.urlRequest()) != nil
            #expect(accepted == hasSchemeAndHost, "\(string)")
        }
    }

    @Test func aBaseURLRelativeToAnotherBecomesAbsoluteAndOneWithoutAHostIsRefused() throws {
        let relative = try #require(URL(string: "v2/", relativeTo: URL(string: "https://api.example.com/root/")))
        let request = try Provider<TestTarget>.defaultEndpointMapping(for: TestTarget(relative, path: "items")).urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/root/v2/items")
        #expect(request.url?.baseURL == nil)

        let hostless = try #require(URL(string: "file:///tmp/"))
        #expect(throws: NetworkError.self) {
            try Provider<TestTarget>.defaultEndpointMapping(for: TestTarget(hostless, path: "x")).urlRequest()
        }
        // A host that does not percent-decode is no host: refused before sending.
        let undecodable = try #require(URL(string: "http://%FF/"))
        #expect(throws: NetworkError.self) {
            try Provider<TestTarget>.defaultEndpointMapping(for: TestTarget(undecodable, path: "x")).urlRequest()
        }
        #expect(throws: NetworkError.self) {
            try Endpoint(url: "http://%FF/x", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
                         task: .requestPlain, httpHeaderFields: nil).urlRequest()
        }
    }

    @Test func theEndpointClosureCanAddHeadersAndReplaceTasks() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(endpointClosure: { target in
                Provider<TestTarget>.defaultEndpointMapping(for: target)
                    .adding(newHTTPHeaderFields: ["X-App": "demo"])
                    .replacing(task: .requestData(Data("replaced".utf8)))
            })
            let echo = try Echo(try await provider.request(TestTarget(server.baseURL, method: .post)))
            #expect(echo.header("X-App") == "demo")
            #expect(echo.bodyText == "replaced")
        }
    }

    @Test func theRequestClosureCanRefuseAndNothingIsSent() async throws {
        struct Offline: Error {}
        try await withServer { server in
            let provider = Provider<TestTarget>(requestClosure: { _ in throw Offline() })
            let error = await #expect(throws: NetworkError.self) { try await provider.request(TestTarget(server.baseURL)) }
            guard case .requestBuildFailed(let underlying) = error else {
                Issue.record("expected requestBuildFailed, got \(String(describing: error))")
                return
            }
            #expect(underlying is Offline)
            #expect(server.hits("/echo") == 0)
        }
    }

    @Test func pluginsSeeTheTargetInsideAMultiTarget() async throws {
        struct SeesTarget: Plugin {
            let seen: Mutex<[String]>
            func willSend(_ request: URLRequest, context: RequestContext) async {
                seen.withLock { $0.append(String(describing: type(of: context.target))) }
            }
        }
        try await withServer { server in
            let seen = Mutex<[String]>([])
            let provider = Provider<MultiTarget>(plugins: [SeesTarget(seen: seen)])
            let response = try await provider.request(MultiTarget(TestTarget(server.baseURL, path: "/status/201")))
            #expect(response.statusCode == 201)
            #expect(seen.withLock { $0 } == ["TestTarget"])
        }
    }

    @Test func optionsReachPlugins() async throws {
        enum Tag: RequestOptionKey { static let defaultValue = "none" }
        struct Tagger: Plugin {
            func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
                var request = request
                request.setValue(context.options[Tag.self], forHTTPHeaderField: "X-Tag")
                return request
            }
        }
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [Tagger()])
            let tagged = try Echo(try await provider.request(TestTarget(server.baseURL), options: RequestOptions().setting(Tag.self, to: "blue")))
            let untagged = try Echo(try await provider.request(TestTarget(server.baseURL)))
            #expect(tagged.header("X-Tag") == "blue")
            #expect(untagged.header("X-Tag") == "none")
        }
    }
}
