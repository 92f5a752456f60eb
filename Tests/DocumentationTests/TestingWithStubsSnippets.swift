// The code of Core/Courier.docc/TestingWithStubs.md.

import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Courier
import CourierCodable

enum Weather: TargetType {
    case forecast(city: String)

    var baseURL: URL { URL(string: "https://weather.example.com")! }
    var path: String {
        switch self {
        case .forecast(let city): "/forecast/\(city)"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
    var sampleData: Data {
        switch self {
        case .forecast(let city): Data(#"{"city": "\#(city)", "celsius": 4}"#.utf8)
        }
    }
}

struct Forecast: Decodable, Sendable {
    let city: String
    let celsius: Int
}

/// Answers from a table of paths, without a socket. Redirects, limits and
/// validation run as they do for the network.
struct TableTransport: Transport {
    let answers: [String: (status: Int, body: String)]

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        let answer = answers[request.url.path] ?? (status: 404, body: "no answer for \(request.url.path)")
        return TransportResponse(statusCode: answer.status, url: request.url,
                                 headerFields: ["Content-Type": "application/json"],
                                 body: ResponseBody(Data(answer.body.utf8)))
    }
}

@Suite struct TestingWithStubsSnippets {
    @Test func anImmediateStubAnswersWithTheSampleData() async throws {
        let provider = Provider<Weather>(stubClosure: Provider.immediatelyStub)
        let forecast = try await provider.request(.forecast(city: "Oslo"), decoding: Forecast.self)
        #expect(forecast.city == "Oslo")
        #expect(forecast.celsius == 4)
    }

    @Test func aDelayedStubWaitsAndCanBeCancelled() async throws {
        let waiting = Provider<Weather>(stubClosure: Provider.delayedStub(0.2))
        let started = ContinuousClock.now
        _ = try await waiting.request(.forecast(city: "Oslo"))
        #expect(started.duration(to: .now) >= .milliseconds(200))

        let slow = Provider<Weather>(stubClosure: Provider.delayedStub(2))
        let call = Task { try await slow.request(.forecast(city: "Oslo")) }
        call.cancel()
        let result = await call.result
        guard case .failure(let error) = result else {
            Issue.record("expected the cancelled call to fail")
            return
        }
        #expect((error as? NetworkError)?.isCancelled == true)
    }

    @Test func aSampleStatusMeetsTheValidation() async throws {
        let busy = Provider<Weather>(
            endpointClosure: { target in
                Provider.defaultEndpointMapping(for: target)
                    .replacing(sampleResponse: .networkResponse(503, Data("busy".utf8)))
            },
            stubClosure: Provider.immediatelyStub
        )
        let error = try await #require(throws: NetworkError.self) {
            try await busy.request(.forecast(city: "Oslo"))
        }
        guard case .statusCode(let response) = error else {
            Issue.record("expected .statusCode, got \(error)")
            return
        }
        #expect(response.statusCode == 503)
        #expect(response.bodyText == "busy")
    }

    @Test func aSampleErrorIsClassifiedAsTheNetworksWouldBe() async throws {
        let offline = Provider<Weather>(
            endpointClosure: { target in
                Provider.defaultEndpointMapping(for: target)
                    .replacing(sampleResponse: .networkError(URLError(.notConnectedToInternet)))
            },
            stubClosure: Provider.immediatelyStub
        )
        let error = try await #require(throws: NetworkError.self) {
            try await offline.request(.forecast(city: "Oslo"))
        }
        guard case .noConnection = error else {
            Issue.record("expected .noConnection, got \(error)")
            return
        }
    }

    @Test func aStubbedCallSomeTargetsOnly() async throws {
        let provider = Provider<Weather>(stubClosure: { target in target.path.hasPrefix("/beta") ? .immediate : .never })
        #expect(provider.stubClosure(.forecast(city: "Oslo")) == .never)
    }

    @Test func aTransportInMemoryRunsTheTransferStage() async throws {
        let transport = TableTransport(answers: ["/forecast/Oslo": (status: 200, body: #"{"city": "Oslo", "celsius": -3}"#)])
        let provider = Provider<Weather>(transport: transport)
        let forecast = try await provider.request(.forecast(city: "Oslo"), decoding: Forecast.self)
        #expect(forecast.celsius == -3)

        let error = try await #require(throws: NetworkError.self) {
            try await provider.request(.forecast(city: "Bergen"))
        }
        #expect(error.response?.statusCode == 404)
    }
}
