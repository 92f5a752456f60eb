// The code of Mappers/JSON/CourierJSON.docc/CourierJSON.md.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierJSON

@Suite struct CourierJSONCatalogSnippets {
    @Test func aBodyReadsAsAJSONValue() async throws {
        try await withServer { server in
            server.route("/search") { _ in
                .json(Data(#"{"data": {"items": [{"id": 9007199254740993, "name": "Ada"}], "total": 1}}"#.utf8))
            }
            let provider = Provider<API>()
            let search = API(baseURL: server.baseURL, path: "/search")
            let json = try await provider.requestJSONValue(search)
            let firstName = json["data"]?["items"]?[0]?["name"]?.stringValue
            let total = json.value(atKeyPath: "data.total")?.intValue
            #expect(firstName == "Ada")
            #expect(total == 1)
            // Integers stay exact, past what a Double holds.
            #expect(json.value(atKeyPath: "data.items[0].id")?.int64Value == 9_007_199_254_740_993)

            let untyped = try await provider.requestJSON(search, atKeyPath: "data")
            #expect((untyped as? [String: Any])?["total"] as? Int == 1)
        }
    }

    @Test func valuesAreWrittenAsLiterals() throws {
        let query: JSONValue = ["q": "swift", "page": 2, "exact": true, "tags": ["a", "b"], "cursor": nil]
        #expect(query["page"] == .integer(2))
        #expect(query["page"] == .double(2))
        #expect(query["cursor"]?.isNull == true)
        let encoded = try JSONEncoder().encode(query)
        #expect(try JSONDecoder().decode(JSONValue.self, from: encoded) == query)
    }
}
