import Courier
import CourierTestSupport
import Foundation
import Testing

/// Redirects: every transport follows them by the same rules.
extension TransportConformanceTests {
    @Test(arguments: TransportKind.allCases, [301, 302, 303])
    func aClassicRedirectBecomesAGETWithoutBody(kind: TransportKind, code: Int) async throws {
        try await kind.withProvider { provider, server in
            let target = TestTarget(server.baseURL, path: "/redirect/\(code)", method: .post,
                                    task: .requestCompositeData(bodyData: Data("form".utf8), urlParameters: ["to": "/echo?landed=1"]))
            let response = try await provider.request(target)
            #expect(response.statusCode == 200)
            let echo = try Echo(response)
            #expect(echo.method == "GET")
            #expect(echo.query == "landed=1")
            #expect(echo.bodyData.isEmpty)
            #expect(response.response?.url?.path == "/echo")
        }
    }

    @Test(arguments: TransportKind.allCases, [307, 308])
    func aPOSTThroughA307Or308KeepsItsMethodAndBody(kind: TransportKind, code: Int) async throws {
        try await kind.withProvider { provider, server in
            let body = LoopbackServer.bytes(count: 50_000, seed: 4)
            let target = TestTarget(server.baseURL, path: "/redirect/\(code)", method: .post,
                                    task: .requestCompositeData(bodyData: body, urlParameters: ["to": "/echo"]))
            let echo = try Echo(try await provider.request(target))
            #expect(echo.method == "POST")
            #expect(echo.bodyData == body)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anUploadedFileSurvivesA307(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("payload.bin")
        let bytes = LoopbackServer.bytes(count: 200_000, seed: 8)
        try bytes.write(to: file)
        try await kind.withProvider { provider, server in
            server.route("/moved") { _ in LoopbackResponse(status: 307, headers: [("Location", "/echo")]) }
            let response = try await provider.request(TestTarget(server.baseURL, path: "/moved", method: .put, task: .uploadFile(file)))
            #expect(try Echo(response).method == "PUT")
            #expect(server.requests(to: "/echo").last?.body == bytes)
        }
    }

    @Test(arguments: TransportKind.allCases, [302, 307])
    func credentialsNeverFollowARedirectToAnotherOrigin(kind: TransportKind, code: Int) async throws {
        try await kind.withProvider { provider, first in
            try await withServer { second in
                first.route("/away") { _ in LoopbackResponse(status: code, headers: [("Location", second.url("/echo").absoluteString)]) }
                let target = TestTarget(first.baseURL, path: "/away",
                                        headers: ["Authorization": "Bearer secret", "Proxy-Authorization": "Basic secret",
                                                  "Cookie": "session=secret", "X-Api-Key": "key", "Api-Key": "key",
                                                  "X-Auth-Token": "token", "X-Kept": "yes"])
                let echo = try Echo(try await provider.request(target))
                for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token"] {
                    #expect(echo.header(name) == nil, "\(name) went to another origin")
                }
                #expect(echo.header("X-Kept") == "yes")
                #expect(first.requests(to: "/away").last?.header("Authorization") == "Bearer secret")
                #expect(first.requests(to: "/away").last?.header("X-Api-Key") == "key")
            }
        }
    }

    /// A secret header of the user's own, named in the configuration, is
    /// dropped too; one left out of it is kept.
    @Test(arguments: TransportKind.allCases)
    func aConfiguredCredentialHeaderNeverFollowsARedirectToAnotherOrigin(kind: TransportKind) async throws {
        var transfer = TransferConfiguration()
        transfer.redirects.credentialHeaders = ["x-tenant-secret"]
        try await kind.withProvider(transfer: transfer) { provider, first in
            try await withServer { second in
                first.route("/away") { _ in LoopbackResponse(status: 302, headers: [("Location", second.url("/echo").absoluteString)]) }
                let target = TestTarget(first.baseURL, path: "/away", headers: ["X-Tenant-Secret": "s", "X-Api-Key": "key"])
                let echo = try Echo(try await provider.request(target))
                #expect(echo.header("X-Tenant-Secret") == nil)
                #expect(echo.header("X-Api-Key") == "key")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func credentialsFollowARedirectWithinTheOrigin(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let target = TestTarget(server.baseURL, path: "/redirect/307", headers: ["Authorization": "Bearer mine"])
                .with { $0.task = .requestParameters(parameters: ["to": "/echo"], encoding: URLEncoding.queryString) }
            let echo = try Echo(try await provider.request(target))
            #expect(echo.header("Authorization") == "Bearer mine")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRedirectLoopEndsWithAClearError(kind: TransportKind) async throws {
        try await kind.withProvider(transfer: .init(redirects: .init(maximum: 3))) { provider, server in
            server.route("/loop") { _ in LoopbackResponse(status: 307, headers: [("Location", "/loop")]) }
            let error = await failure(of: TestTarget(server.baseURL, path: "/loop"), on: provider)
            guard case .redirectRefused(.tooManyRedirects(3)) = error else {
                Issue.record("expected redirectRefused, got \(String(describing: error))")
                return
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("more than 3 redirects"))
            #expect(server.hits("/loop") == 4)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func redirectsCanBeReturnedInsteadOfFollowed(kind: TransportKind) async throws {
        try await kind.withProvider(transfer: .init(redirects: .init(follows: false))) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/redirect/302"))
            #expect(response.statusCode == 302)
            #expect(response.value(forHTTPHeaderField: "Location") == "/echo")
            #expect(server.hits("/echo") == 0)
        }
    }
}

extension TestTarget {
    func with(_ change: (inout TestTarget) -> Void) -> TestTarget {
        var copy = self
        change(&copy)
        return copy
    }
}
