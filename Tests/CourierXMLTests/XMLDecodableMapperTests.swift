import Courier
import CourierTestSupport
import CourierXML
import Foundation
import Testing
import XMLCoder

private struct Catalog: Decodable, Equatable, Sendable {
    struct Book: Decodable, Equatable, Sendable {
        let id: Int
        let title: String
        let published: Date
    }

    let book: [Book]
}

private let catalogXML = """
<?xml version="1.0" encoding="UTF-8"?>
<catalog>
  <book><id>1</id><title>Dune</title><published>1965-08-01T00:00:00Z</published></book>
  <book><id>2</id><title>Solaris</title><published>1961-01-01T00:00:00Z</published></book>
</catalog>
"""

private func serve<T: Sendable>(_ xml: String, _ run: @Sendable (Provider<TestTarget>, TestTarget) async throws -> T) async throws -> T {
    try await withServer { server in
        server.route("/catalog.xml") { _ in
            LoopbackResponse(headers: [("Content-Type", "application/xml; charset=utf-8")], body: .data(Data(xml.utf8)))
        }
        return try await run(Provider<TestTarget>(), TestTarget(server.baseURL, path: "/catalog.xml"))
    }
}

private func failure(_ error: NetworkError?) throws -> XMLMappingFailure {
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.statusCode == 200)
    #expect(!response.data.isEmpty)
    return try #require(underlying as? XMLMappingFailure)
}

@Suite struct XMLDecodableMapperTests {
    private static let isoDecoder: @Sendable () -> XMLDecoder = {
        let decoder = XMLDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test func decodesXMLWithAConfiguredDecoder() async throws {
        let catalog = try await serve(catalogXML) { provider, target in
            try await provider.request(target, decodingXML: Catalog.self, makeDecoder: Self.isoDecoder)
        }
        #expect(catalog.book.map(\.title) == ["Dune", "Solaris"])
        #expect(catalog.book[0].published == Date(timeIntervalSince1970: -139_449_600))
    }

    @Test func invalidXMLIsAMappingFailure() async throws {
        let error = await #expect(throws: NetworkError.self) {
            try await serve("<catalog><book><id>1</book>") { provider, target in
                try await provider.request(target, decodingXML: Catalog.self, makeDecoder: Self.isoDecoder)
            }
        }
        #expect(try failure(error).description.hasPrefix("the body is not valid XML"))
    }

    @Test func aWrongTypeSaysWhere() async throws {
        let wrong = catalogXML.replacingOccurrences(of: "<id>2</id>", with: "<id>two</id>")
        let error = await #expect(throws: NetworkError.self) {
            try await serve(wrong) { provider, target in
                try await provider.request(target, mapper: XMLDecodableMapper<Catalog>(makeDecoder: Self.isoDecoder))
            }
        }
        let reason = try failure(error)
        #expect(reason.path == "book[1].id")
        #expect(reason.description.hasPrefix("expected Int at book[1].id"))
    }
}
