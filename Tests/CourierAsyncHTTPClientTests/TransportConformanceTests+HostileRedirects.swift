import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Redirects a hostile server sends, a 401 every server sends, and bodies
/// that cannot be read twice: the transfer stage's rules on every transport.
extension TransportConformanceTests {
    static let hostileLocations = [
        "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json",
        "unix:///var/run/docker.sock",
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
    ]

    @Test(arguments: TransportKind.allCases, hostileLocations)
    func aRedirectToASchemeOtherThanHTTPIsRefused(kind: TransportKind, location: String) async throws {
        try await kind.withProvider { provider, server in
            server.route("/hostile") { _ in LoopbackResponse(status: 307, headers: [("Location", location)]) }
            let target = TestTarget(server.baseURL, path: "/hostile", method: .post, task: .requestData(Data("secret body".utf8)))
            let error = await failure(of: target, on: provider)
            guard case .redirectRefused(.unsupportedScheme) = error else {
                Issue.record("expected redirectRefused, got \(String(describing: error))")
                return
            }
            #expect(server.requests.map(\.path) == ["/hostile"])
        }
    }

    /// Redirects URLSession used to follow by itself (301, 302) count too.
    @Test(arguments: TransportKind.allCases, [301, 302, 307])
    func aRedirectLoopOfAnyStatusStopsAtTheLimit(kind: TransportKind, code: Int) async throws {
        try await kind.withProvider(transfer: .init(redirects: .init(maximum: 3))) { provider, server in
            server.route("/loop") { _ in LoopbackResponse(status: code, headers: [("Location", "/loop")]) }
            let error = await failure(of: TestTarget(server.baseURL, path: "/loop"), on: provider)
            guard case .redirectRefused(.tooManyRedirects(3)) = error else {
                Issue.record("expected redirectRefused, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/loop") == 4)
        }
    }

    /// The in-memory transport answers an https URL, so the downgrade rule is
    /// seen without certificates.
    @Test(arguments: [false, true])
    func anHTTPSToHTTPDowngradeIsRefusedUnlessAllowed(allowed: Bool) async throws {
        let transfer = TransferConfiguration(redirects: .init(allowsInsecureDowngrade: allowed))
        try await TransportKind.inMemory.withProvider(transfer: transfer) { provider, server in
            server.route("/secure") { _ in LoopbackResponse(status: 302, headers: [("Location", server.url("/echo").absoluteString)]) }
            let secure = try #require(URL(string: "https://127.0.0.1:\(server.port)"))
            let target = TestTarget(secure, path: "/secure", headers: ["Authorization": "Bearer secret"])
            if allowed {
                let echo = try Echo(try await provider.request(target))
                #expect(echo.header("Authorization") == nil)
            } else {
                let error = await failure(of: target, on: provider)
                guard case .redirectRefused(.insecureDowngrade) = error else {
                    Issue.record("expected redirectRefused, got \(String(describing: error))")
                    return
                }
                #expect(server.hits("/echo") == 0)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamBodySurvivesA307(kind: TransportKind) async throws {
        let body = LoopbackServer.bytes(count: 300_000, seed: 9)
        try await withServer { server in
            try await kind.withTransport(server: server) { transport in
                let provider = Provider<TestTarget>(requestClosure: { endpoint in
                    var request = try endpoint.urlRequest()
                    request.httpBodyStream = InputStream(data: body)
                    return request
                }, transport: transport)
                let target = TestTarget(server.baseURL, path: "/redirect/307", method: .post,
                                        task: .requestParameters(parameters: ["to": "/echo"], encoding: URLEncoding.queryString))
                let echo = try Echo(try await provider.request(target))
                #expect(echo.method == "POST")
                #expect(echo.bodyData == body)
            }
        }
    }

    /// Every standard server sends `WWW-Authenticate` with a 401; it comes
    /// back as a response at once, with or without a token plugin.
    @Test(arguments: TransportKind.allCases, ["Basic realm=\"courier\"", "Bearer realm=\"courier\", error=\"invalid_token\""])
    func a401WithAChallengeIsAResponse(kind: TransportKind, challenge: String) async throws {
        for plugins in [[], [BearerTokenPlugin()]] as [[any Plugin]] {
            try await kind.withProvider(plugins: plugins) { provider, server in
                server.route("/protected") { _ in .text("denied", status: 401, headers: [("WWW-Authenticate", challenge)]) }
                let response = try await withDeadline(120, "a 401") {
                    try await provider.request(TestTarget(server.baseURL, path: "/protected"))
                }
                #expect(response.statusCode == 401)
                #expect(response.data == Data("denied".utf8))
                #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == challenge)
                #expect(server.hits("/protected") == 1)
            }
        }
    }
}

/// Adds a fixed bearer token, as a token plugin does.
private struct BearerTokenPlugin: Plugin {
    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        var request = request
        request.setValue("Bearer expired", forHTTPHeaderField: "Authorization")
        return request
    }
}
