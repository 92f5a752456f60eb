@_spi(Testing) import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rest of Moya's provider spec (the completion handler's own behaviours
/// are in `CompletionTests`): stubs and their samples, request closures,
/// struct and pathless targets, in-flight sharing, progress, and the plugins
/// Moya ships.
@Suite struct ProviderTests {
    private static let stubbed = Provider<GitHub>(stubClosure: Provider.immediatelyStub)

    @Test func aStubbedResponseCarriesItsRequestAndSample() async throws {
        let zen = try await Self.stubbed.request(.zen)
        #expect(zen.request?.url?.absoluteString == "https://api.github.com/zen")
        #expect(String(decoding: zen.data, as: UTF8.self) == "Half measures are as bad as nothing at all.")
        let profile = try await Self.stubbed.request(.userProfile("ashfurrow"))
        #expect(String(decoding: profile.data, as: UTF8.self) == "{\"login\": \"ashfurrow\", \"id\": 100}")
    }

    @Test func theSameTargetGivesEqualEndpointsAndRequests() throws {
        let one = Self.stubbed.endpoint(.zen)
        let other = Self.stubbed.endpoint(.zen)
        #expect(one == other)
        #expect(try one.urlRequest() == other.urlRequest())
    }

    // MARK: Plugins Moya ships

    @Test(arguments: [false, true])
    func theCredentialsClosureIsAskedEvenForStubs(returnsCredential: Bool) async throws {
        let called = Mutex(false)
        let plugin = CredentialsPlugin { _ in
            called.withLock { $0 = true }
            return returnsCredential ? URLCredential(user: "user", password: "passwd", persistence: .none) : nil
        }
        let provider = Provider<HTTPBin>(stubClosure: Provider.immediatelyStub, plugins: [plugin])
        _ = try await provider.request(.basicAuth)
        #expect(called.withLock { $0 })
    }

    @Test func credentialsAreSentAsBasicAndAWrongPasswordIsAStatusNotASignInFailure() async throws {
        try await withServer { server in
            server.route("/basic-auth/user/passwd") { request in
                request.header("Authorization") == "Basic dXNlcjpwYXNzd2Q="
                    ? .json(Data("{\"authenticated\": true, \"user\": \"user\"}".utf8))
                    : .text("", status: 401, headers: [("WWW-Authenticate", "Basic realm=\"Fake Realm\"")])
            }
            let good = Provider<HTTPBin>(endpointClosure: rebased(onto: server), plugins: [
                CredentialsPlugin { _ in URLCredential(user: "user", password: "passwd", persistence: .none) },
            ])
            let accepted = try await good.request(.basicAuth).statusCode
            #expect(accepted == 200)
            let wrong = Provider<HTTPBin>(endpointClosure: rebased(onto: server), plugins: [
                CredentialsPlugin { _ in URLCredential(user: "user", password: "wrong", persistence: .none) },
            ])
            let response = try await wrong.request(.basicAuth) // HTTPBin validates nothing
            #expect(response.statusCode == 401)
        }
    }

    @Test func networkActivityBeginsAndEndsOncePerCall() async throws {
        let changes = Mutex<[String]>([])
        let plugin = NetworkActivityPlugin { change, target in
            changes.withLock { $0.append("\(change) \((target as? GitHub) == .zen)") }
        }
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub, plugins: [plugin])
        _ = try await provider.request(.zen)
        #expect(changes.withLock { $0 } == ["began true", "ended true"])
    }

    // MARK: Delayed stubs and request closures

    @Test func aDelayedStubAnswersNoSoonerThanItsDelay() async throws {
        let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(0.05))
        let start = ContinuousClock.now
        _ = try await provider.request(.zen)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func aSlowRequestClosureStillSucceeds() async throws {
        let provider = Provider<GitHub>(requestClosure: { endpoint in
            await Task.yield()
            return try endpoint.urlRequest()
        }, stubClosure: Provider.delayedStub(0.01))
        #expect(try await provider.request(.userProfile("ashfurrow")).statusCode == 200)
    }

    @Test func cancellingWhileTheRequestIsBuiltEndsWithCancelled() async throws {
        let gate = Gate()
        let entered = Gate()
        let provider = Provider<GitHub>(requestClosure: { endpoint in
            entered.open()
            await gate.wait()
            return try endpoint.urlRequest()
        }, stubClosure: Provider.delayedStub(30))
        let outcome = await result { completion in
            let cancellable = provider.request(.zen, completion: completion)
            Task {
                await entered.wait()
                cancellable.cancel()
                gate.open()
            }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.isCancelled)
    }

    @Test func theRequestClosureRuns() async throws {
        let executed = Mutex(false)
        let provider = Provider<GitHub>(requestClosure: { endpoint in
            executed.withLock { $0 = true }
            return try endpoint.urlRequest()
        }, stubClosure: Provider.immediatelyStub)
        _ = try await provider.request(.zen)
        #expect(executed.withLock { $0 })
    }

    @Test func aRequestClosureThatThrowsFailsTheCall() async {
        let provider = Provider<GitHub>(requestClosure: { _ in throw NSError(domain: "", code: 123) },
                                        stubClosure: Provider.immediatelyStub)
        let error = await #expect(throws: NetworkError.self) { try await provider.request(.zen) }
        guard case .requestBuildFailed(let underlying)? = error else {
            Issue.record("expected requestBuildFailed, got \(String(describing: error))")
            return
        }
        #expect((underlying as NSError).code == 123)
    }

    // MARK: Sample responses

    @Test func aSampleResponseIsReturnedAsItIs() async throws {
        let http = HTTPURLResponse(url: URL(string: "http://example.com")!, statusCode: 200, httpVersion: nil, headerFields: nil)!
        let provider = Provider<GitHub>(endpointClosure: { target in
            Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .response(http, target.sampleData))
        }, stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.zen)
        #expect(response.data == GitHub.zen.sampleData)
        #expect(response.response === http)
    }

    @Test func aSampleErrorFailsTheCallWithThatError() async {
        let sample = NSError(domain: "Internal iOS Error", code: -1234)
        let provider = Provider<GitHub>(endpointClosure: { target in
            Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkError(sample))
        }, stubClosure: Provider.immediatelyStub)
        let error = await #expect(throws: NetworkError.self) { try await provider.request(.zen) }
        #expect(error?.underlyingError as? NSError == sample)
    }

    @Test(arguments: [GitHub.zen, .userProfile("ashfurrow")])
    func stubbedErrorsFailWithTheirMessage(target: GitHub) async {
        let provider = Provider<GitHub>(endpointClosure: failureEndpointClosure, stubClosure: Provider.immediatelyStub)
        let error = await #expect(throws: NetworkError.self) { try await provider.request(target) }
        #expect(error?.underlyingError?.localizedDescription == "Houston, we have a problem")
    }

    @Test(arguments: [(400, false), (200, true)])
    func stubsAreValidated(status: Int, succeeds: Bool) async {
        let provider = Provider<GitHub>(endpointClosure: { target in
            Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkResponse(status, target.sampleData))
        }, stubClosure: Provider.immediatelyStub)
        do throws(NetworkError) {
            let response = try await provider.request(.zen)
            #expect(succeeds)
            #expect(ValidationType.successAndRedirectCodes.accepts(response.statusCode))
        } catch .statusCode(let response) {
            #expect(!succeeds)
            #expect(response.statusCode == status)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    // MARK: Struct and pathless targets

    struct StructAPI: TargetType {
        var baseURL: URL { URL(string: "http://example.com")! }
        var path: String { "/endpoint" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestParameters(parameters: ["key": "value"], encoding: URLEncoding.default) }
        var sampleData: Data { Data("sample data".utf8) }
        var headers: [String: String]? { ["headerKey": "headerValue"] }
    }

    @Test func aStructTargetThroughMultiTargetKeepsItsMembers() async throws {
        let seen = Mutex<Endpoint?>(nil)
        let provider = Provider<MultiTarget>(requestClosure: { endpoint in
            seen.withLock { $0 = endpoint }
            return try endpoint.urlRequest()
        }, stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(MultiTarget(StructAPI()))
        let endpoint = try #require(seen.withLock { $0 })
        #expect(endpoint.url == "http://example.com/endpoint")
        #expect(endpoint.method == .get)
        #expect(endpoint.httpHeaderFields == ["headerKey": "headerValue"])
        #expect(String(decoding: response.data, as: UTF8.self) == "sample data")
    }

    struct PathlessAPI: TargetType {
        var baseURL: URL { URL(string: "http://example.com/123/somepath?X-ABC-Asd=123")! }
        var path: String { "" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestParameters(parameters: ["key": "value"], encoding: URLEncoding.default) }
        var headers: [String: String]? { nil }
    }

    @Test func anEmptyPathLeavesTheBaseURLUnchanged() {
        #expect(Provider<PathlessAPI>.defaultEndpointMapping(for: PathlessAPI()).url == "http://example.com/123/somepath?X-ABC-Asd=123")
    }

    // MARK: In-flight requests

    @Test func identicalRequestsInFlightShareOneResponse() async throws {
        try await withServer { server in
            let gate = heldZen(on: server)
            let provider = Provider<GitHub>(endpointClosure: rebased(onto: server), coalescesRequests: true)
            async let first = provider.request(.zen)
            async let second = provider.request(.zen)
            try await withDeadline { await server.waitForRequest(to: "/zen") }
            try await waitUntil("both callers joined") { provider.coalescedWaiterCount == 2 }
            gate.open()
            let (one, other) = try await (first, second)
            #expect(one.data == other.data)
            #expect(one.statusCode == 200)
            #expect(server.hits("/zen") == 1)
        }
    }

    // MARK: Progress

    private static func progress(of target: HTTPBin, on server: LoopbackServer) async throws -> [TransferProgress] {
        let reports = Mutex<[TransferProgress]>([])
        let provider = Provider<HTTPBin>(endpointClosure: rebased(onto: server))
        let outcome = await result { completion in
            provider.request(target, progress: { report in reports.withLock { $0.append(report) } }, completion: completion)
        }
        _ = try outcome.get()
        return reports.withLock { $0 }
    }

    @Test func downloadProgressRisesToTheWholeBody() async throws {
        try await withServer { server in
            let reports = Mutex<[TransferProgress]>([])
            let provider = Provider<TestTarget>()
            let target = TestTarget(server.baseURL, path: "/bytes/4000")
            _ = try await provider.request(target, options: RequestOptions(progress: { report in reports.withLock { $0.append(report) } }))
            let fractions = reports.withLock { $0 }.filter { $0.direction == .download }.compactMap(\.fractionCompleted)
            #expect(!fractions.isEmpty)
            #expect(fractions == fractions.sorted())
            #expect(fractions.last == 1.0)
        }
    }

    @Test func withoutALengthProgressCountsBytesAndHasNoFraction() async throws {
        try await withServer { server in
            let reports = Mutex<[TransferProgress]>([])
            let provider = Provider<TestTarget>()
            let target = TestTarget(server.baseURL, path: "/chunked/4000", task: .requestParameters(parameters: ["chunks": "4"], encoding: URLEncoding.queryString))
            _ = try await provider.request(target, options: RequestOptions(progress: { report in reports.withLock { $0.append(report) } }))
            let downloads = reports.withLock { $0 }.filter { $0.direction == .download }
            #expect(!downloads.isEmpty)
            #expect(downloads.allSatisfy { $0.totalBytes == nil && $0.fractionCompleted == nil })
            #expect(downloads.last?.completedBytes == 4000)
        }
    }

    @Test func uploadProgressOfAFileAndOfMultipartFormsEndsFinishedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("testImage.png")
        try Data(repeating: 7, count: 3_000_000).write(to: file)
        let parts = [
            MultipartFormBodyPart(provider: .file(file), name: "file", fileName: "testImage"),
            MultipartFormBodyPart(provider: .data(Data("some data".utf8)), name: "data"),
        ]
        try await withServer { server in
            for target in [HTTPBin.upload(file: file), .uploadMultipartFormData(MultipartFormData(parts: parts), nil),
                           .uploadMultipartBodyParts(parts, nil)] {
                // How many reports come before the last depends on how fast the
                // loopback takes the body (one, on a loaded machine); what a
                // caller relies on is an ordered run that ends finished, once.
                let uploads = try await Self.progress(of: target, on: server).filter { $0.direction == .upload }
                #expect(!uploads.isEmpty, "\(target)")
                #expect(uploads.map(\.completedBytes) == uploads.map(\.completedBytes).sorted(), "\(target)")
                #expect(uploads.filter(\.isFinished).count == 1, "\(target)")
                #expect(uploads.last?.isFinished == true, "\(target)")
                #expect((uploads.last?.completedBytes ?? 0) >= 3_000_000, "\(target)")
            }
        }
    }
}
