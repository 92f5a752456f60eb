import Courier
import CourierJSON
import CourierTestSupport
import Foundation
import Testing

private func withBody<T: Sendable>(
    _ body: Data,
    contentType: String = "application/json",
    _ run: @Sendable (Provider<TestTarget>, TestTarget) async throws -> T
) async throws -> T {
    try await withServer { server in
        server.route("/json") { _ in LoopbackResponse(headers: [("Content-Type", contentType)], body: .data(body)) }
        return try await run(Provider<TestTarget>(), TestTarget(server.baseURL, path: "/json"))
    }
}

private func failure(_ error: NetworkError?, body: Data) throws -> JSONMappingFailure {
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.data == body)
    return try #require(underlying as? JSONMappingFailure)
}

private let body = Data(#"{"data":{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}],"total":2}}"#.utf8)

@Suite struct JSONMapperTests {
    @Test func anyMapperFollowsAKeyPath() async throws {
        let name = try await withBody(body) { provider, target in
            let item = try await provider.requestJSON(target, atKeyPath: "data.items[1]") as? [String: Any]
            return item?["name"] as? String
        }
        #expect(name == "two")
    }

    @Test func jsonValueMapperReadsTheWholeBodyAndAKeyPath() async throws {
        let (whole, total) = try await withBody(body) { provider, target in
            (try await provider.requestJSONValue(target), try await provider.requestJSONValue(target, atKeyPath: "data.total"))
        }
        #expect(whole["data"]?["items"]?[0]?["id"]?.intValue == 1)
        #expect(total == 2)
    }

    @Test func badJSONIsAMappingFailureWithTheResponse() async throws {
        let bad = Data("{\"data\": [1, 2,".utf8)
        for useValue in [false, true] {
            let error = await #expect(throws: NetworkError.self) {
                try await withBody(bad) { provider, target in
                    if useValue { _ = try await provider.requestJSONValue(target) } else { _ = try await provider.requestJSON(target) }
                }
            }
            let reason = try failure(error, body: bad)
            #expect(reason.kind == .invalidJSON)
            #expect(reason.description.hasPrefix("the body is not valid JSON"))
        }
    }

    @Test func aKeyPathThroughTheWrongTypeSaysWhatWasFound() async throws {
        let error = await #expect(throws: NetworkError.self) {
            try await withBody(body) { provider, target in
                try await provider.requestJSONValue(target, atKeyPath: "data.total.value")
            }
        }
        let reason = try failure(error, body: body)
        #expect(reason.kind == .keyPathNotFound)
        #expect(reason.description == "expected a value at data.total.value (key path data.total.value), found a number (2)")
    }

    @Test func anEmptyBodyFailsUnlessAllowed() async throws {
        let error = await #expect(throws: NetworkError.self) {
            try await withBody(Data()) { provider, target in try await provider.requestJSONValue(target) }
        }
        #expect(try failure(error, body: Data()).kind == .emptyBody)
        let value = try await withBody(Data()) { provider, target in
            try await provider.requestJSONValue(target, failsOnEmptyData: false)
        }
        #expect(value == .null)
    }
}
