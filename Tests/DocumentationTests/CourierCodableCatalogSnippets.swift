// The code of Mappers/Codable/CourierCodable.docc/CourierCodable.md.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierCodable

struct Item: Decodable, Sendable {
    let id: Int
    let name: String
}

@Suite struct CourierCodableCatalogSnippets {
    @Test func itemsDecodeFromAKeyPath() async throws {
        try await withServer { server in
            server.route("/search") { _ in .json(Data(#"{"data": {"items": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]}}"#.utf8)) }
            let provider = Provider<API>()
            let search = API(baseURL: server.baseURL, path: "/search")
            let items = try await provider.request(search, decoding: [Item].self, atKeyPath: "data.items")
            #expect(items.map(\.name) == ["Ada", "Grace"])

            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let mapper = DecodableMapper<[Item]>(decoder: decoder, atKeyPath: "data.items")
            let sameItems = try await provider.request(search, mapper: mapper)
            #expect(sameItems.map(\.id) == [1, 2])
        }
    }

    @Test func aFailureSaysWhatWasExpectedWhere() async throws {
        try await withServer { server in
            server.route("/search") { _ in .json(Data(#"{"data": {"items": [{"id": "seven", "name": "Ada"}]}}"#.utf8)) }
            let provider = Provider<API>()
            let search = API(baseURL: server.baseURL, path: "/search")
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(search, decoding: [Item].self, atKeyPath: "data.items")
            }
            guard case .mappingFailed(let response, let failure as DecodingFailure) = error else {
                Issue.record("expected mappingFailed(DecodingFailure), got \(error)")
                return
            }
            #expect(response.statusCode == 200)
            #expect(failure.kind == .typeMismatch)
            #expect(failure.path == "data.items[0].id")
            #expect(failure.description.hasPrefix("expected Int at data.items[0].id"))
        }
    }
}
