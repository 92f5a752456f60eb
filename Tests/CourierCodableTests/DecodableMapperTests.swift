import Courier
import CourierCodable
import CourierTestSupport
import Foundation
import Testing

private struct Item: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

private struct Event: Codable, Equatable, Sendable {
    let title: String
    let at: Date
}

private let itemsBody = Data(#"{"data":{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"},{"id":3,"name":"three"},{"id":"4","name":"four"}]}}"#.utf8)

/// Serves `body` as JSON at `/json` and runs `body` with a provider.
private func withJSON<T: Sendable>(
    _ json: Data,
    contentType: String = "application/json",
    _ body: @Sendable (Provider<TestTarget>, TestTarget) async throws -> T
) async throws -> T {
    try await withServer { server in
        server.route("/json") { _ in LoopbackResponse(headers: [("Content-Type", contentType)], body: .data(json)) }
        return try await body(Provider<TestTarget>(), TestTarget(server.baseURL, path: "/json"))
    }
}

/// The `DecodingFailure` inside a `.mappingFailed`, checking the response is attached.
private func decodingFailure(_ error: NetworkError, body: Data) throws -> DecodingFailure {
    guard case .mappingFailed(let response, let underlying) = error else {
        Issue.record("expected .mappingFailed, got \(error)")
        throw error
    }
    #expect(response.data == body)
    return try #require(underlying as? DecodingFailure)
}

@Suite struct DecodableMapperTests {
    @Test func decodesTheWholeBody() async throws {
        let body = Data(#"{"id":7,"name":"seven"}"#.utf8)
        let item = try await withJSON(body) { provider, target in
            try await provider.request(target, decoding: Item.self)
        }
        #expect(item == Item(id: 7, name: "seven"))
    }

    @Test func decodesAtAKeyPathWithAnIndex() async throws {
        let item = try await withJSON(itemsBody) { provider, target in
            try await provider.request(target, decoding: Item.self, atKeyPath: "data.items[1]")
        }
        #expect(item == Item(id: 2, name: "two"))
    }

    @Test func decodesAnArrayAtAKeyPath() async throws {
        let body = Data(#"{"data":{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}}"#.utf8)
        let items = try await withJSON(body) { provider, target in
            try await provider.request(target, decoding: [Item].self, atKeyPath: "data.items")
        }
        #expect(items.map(\.id) == [1, 2])
    }

    @Test func usesTheInjectedDecodersDateStrategy() async throws {
        let body = Data(#"{"title":"launch","at":"2026-11-22T05:00:00Z"}"#.utf8)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let event = try await withJSON(body) { provider, target in
            try await provider.request(target, decoding: Event.self, decoder: decoder)
        }
        #expect(event.at == Date(timeIntervalSince1970: 1_795_323_600))
    }

    @Test func aDateInAnotherFormatSaysWhere() async throws {
        let body = Data(#"{"title":"launch","at":"22/11/2026"}"#.utf8)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let error = await #expect(throws: NetworkError.self) {
            try await withJSON(body) { provider, target in
                try await provider.request(target, decoding: Event.self, decoder: decoder)
            }
        }
        let failure = try decodingFailure(try #require(error), body: body)
        #expect(failure.kind == .invalidValue)
        // Foundation on Linux leaves the key out of a date error's coding path,
        // so only the reason is checked here.
        #expect(failure.description.contains("Expected date string to be ISO8601-formatted"))
    }

    @Test func aWrongTypeSaysWhatWasExpectedWhere() async throws {
        let error = await #expect(throws: NetworkError.self) {
            try await withJSON(itemsBody) { provider, target in
                try await provider.request(target, decoding: [Item].self, atKeyPath: "data.items")
            }
        }
        let failure = try decodingFailure(try #require(error), body: itemsBody)
        #expect(failure.kind == .typeMismatch)
        #expect(failure.description == "expected Int at data.items[3].id, found a string of 1 character")
        #expect(String(describing: try #require(error)).contains("expected Int at data.items[3].id"))
    }

    @Test func aMissingKeyAndANullAreNamed() throws {
        let missing = Data(#"[{"id":1}]"#.utf8)
        #expect(throws: DecodingFailure.self) { try DecodableMapper<[Item]>().decode(missing) }
        do {
            _ = try DecodableMapper<[Item]>().decode(missing)
        } catch {
            #expect(error.description == "expected a value at [0].name, found no such key")
        }
        do {
            _ = try DecodableMapper<Item>().decode(Data(#"{"id":null,"name":"x"}"#.utf8))
        } catch {
            #expect(error.kind == .valueMissing)
            #expect(error.description == "expected Int at id, found null")
        }
    }

    @Test func badJSONIsAMappingFailure() async throws {
        let body = Data(#"{"id": 1, "name": "#.utf8)
        let error = await #expect(throws: NetworkError.self) {
            try await withJSON(body) { provider, target in
                try await provider.request(target, decoding: Item.self)
            }
        }
        let failure = try decodingFailure(try #require(error), body: body)
        #expect(failure.kind == .invalidJSON)
        #expect(failure.description.hasPrefix("the body is not valid JSON"))
    }

    @Test func aKeyPathThatLeadsNowhereSaysWhere() throws {
        let mapper = DecodableMapper<Item>(atKeyPath: "data.items[9]")
        do {
            _ = try mapper.decode(itemsBody)
            Issue.record("decoded past the end of the array")
        } catch {
            #expect(error.kind == .keyPathNotFound)
            #expect(error.path == "data.items[9]")
            #expect(error.description.contains("found an array of 4 elements"))
        }
        #expect(throws: DecodingFailure.self) { try DecodableMapper<Item>(atKeyPath: "data.items[x]").decode(itemsBody) }
        #expect(throws: DecodingFailure.self) { try DecodableMapper<Item>(atKeyPath: "data..items").decode(itemsBody) }
    }

    @Test func anEmptyBodyFailsUnlessAllowed() async throws {
        try await withServer { server in
            server.route("/empty") { _ in LoopbackResponse(status: 204) }
            let provider = Provider<TestTarget>()
            let target = TestTarget(server.baseURL, path: "/empty")
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(target, decoding: Item.self)
            }
            let failure = try decodingFailure(try #require(error), body: Data()) as DecodingFailure?
            #expect(failure?.kind == .emptyBody)
            let nothing = try await provider.request(target, decoding: Item?.self, failsOnEmptyData: false)
            #expect(nothing == nil)
        }
    }
}
