import Courier
import CourierTestSupport
import Foundation
import Testing

/// Validation on real and stubbed responses; stubs pass through plugins.
@Suite struct ValidationAndStubTests {
    @Test(arguments: [
        (ValidationType.none, 404, true),
        (.successCodes, 204, true),
        (.successCodes, 404, false),
        (.successCodes, 302, false),
        (.successAndRedirectCodes, 304, true),
        (.successAndRedirectCodes, 500, false),
        (.customCodes([200, 418]), 418, true),
        (.customCodes([200, 418]), 201, false),
    ])
    func realResponsesAreValidated(validation: ValidationType, status: Int, accepted: Bool) async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(transfer: TransferConfiguration(redirects: .init(follows: false)))
            let target = TestTarget(server.baseURL, path: "/status/\(status)", validationType: validation)
            do throws(NetworkError) {
                let response = try await provider.request(target)
                #expect(accepted, "status \(status) should fail \(validation)")
                #expect(response.statusCode == status)
            } catch .statusCode(let response) {
                #expect(!accepted, "status \(status) should pass \(validation)")
                #expect(response.statusCode == status)
                #expect(response.request?.url?.path == "/status/\(status)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func aStubbedStatusIsValidatedLikeARealOne() async throws {
        let log = HookLog()
        let provider = Provider<TestTarget>(
            endpointClosure: { target in
                Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkResponse(500, Data("down".utf8)))
            },
            stubClosure: Provider.immediatelyStub,
            plugins: [RecordingPlugin("r", log: log)]
        )
        let target = TestTarget(URL(string: "http://stub.invalid")!, validationType: .successCodes)
        let error = await #expect(throws: NetworkError.self) { try await provider.request(target) }
        #expect(error?.response?.statusCode == 500)
        #expect(error?.response?.data == Data("down".utf8))
        #expect(log.all == ["r.prepare", "r.intercept>", "r.willSend#1", "r.intercept<", "r.didReceive", "r.process"])
    }

    @Test func sampleDataIsTheDefaultStubAnswer() async throws {
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub)
        let target = TestTarget(URL(string: "http://stub.invalid")!, sampleData: Data("sample".utf8))
        let response = try await provider.request(target)
        #expect(response.statusCode == 200)
        #expect(response.data == Data("sample".utf8))
        #expect(response.request?.url?.host == "stub.invalid")
    }

    @Test func aStubCanAnswerAFullResponse() async throws {
        let url = URL(string: "http://stub.invalid/echo")!
        let http = try #require(HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: ["X-Id": "7"]))
        let provider = Provider<TestTarget>(
            endpointClosure: { Provider.defaultEndpointMapping(for: $0).replacing(sampleResponse: .response(http, Data())) },
            stubClosure: Provider.immediatelyStub
        )
        let response = try await provider.request(TestTarget(URL(string: "http://stub.invalid")!))
        #expect(response.statusCode == 201)
        #expect(response.value(forHTTPHeaderField: "x-id") == "7")
    }

    @Test func aStubCanFailLikeTheNetwork() async throws {
        let provider = Provider<TestTarget>(
            endpointClosure: { Provider.defaultEndpointMapping(for: $0).replacing(sampleResponse: .networkError(URLError(.notConnectedToInternet))) },
            stubClosure: Provider.immediatelyStub
        )
        await #expect {
            try await provider.request(TestTarget(URL(string: "http://stub.invalid")!))
        } throws: { error in
            guard case NetworkError.noConnection = error else { return false }
            return true
        }
    }

    @Test func aDelayedStubCanBeCancelled() async throws {
        let provider = Provider<TestTarget>(stubClosure: Provider.delayedStub(60))
        let task = Task { try await provider.request(TestTarget(URL(string: "http://stub.invalid")!)) }
        task.cancel()
        let result = await task.result
        #expect((result.failure as? NetworkError)?.isCancelled == true)
    }

    @Test func responseFiltersThrowStatusCode() throws {
        let response = Response(statusCode: 404, data: Data())
        #expect(throws: NetworkError.self) { try response.filterSuccessfulStatusCodes() }
        #expect(throws: NetworkError.self) { try response.filter(statusCode: 200) }
        #expect(try response.filter(statusCodes: 400..<500).statusCode == 404)
        #expect(try Response(statusCode: 301, data: Data()).filterSuccessfulStatusAndRedirectCodes().statusCode == 301)
    }

    /// A delay no clock can represent is clamped, not a trap; cancelling ends it.
    @Test func aStubDelayedForeverEndsWhenCancelled() async throws {
        let provider = Provider<TestTarget>(stubClosure: { _ in .delayed(seconds: .infinity) })
        let target = TestTarget(try #require(URL(string: "http://stub.test")))
        let task = Task { try await provider.request(target) }
        task.cancel()
        let error = await task.result.failure as? NetworkError
        #expect(error?.isCancelled == true, "got \(String(describing: error))")
    }
}
