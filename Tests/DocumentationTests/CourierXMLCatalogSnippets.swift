// The code of Mappers/XML/CourierXML.docc/CourierXML.md.
// Needs the test target to depend on CourierXML.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierXML

struct Note: Decodable, Sendable {
    let to: String
    let body: String
}

@Suite struct CourierXMLCatalogSnippets {
    @Test func anXMLBodyDecodes() async throws {
        try await withServer { server in
            server.route("/note") { _ in
                LoopbackResponse(headers: [("Content-Type", "application/xml")],
                                 body: .data(Data("<note><to>Ada</to><body>Hello</body></note>".utf8)))
            }
            let provider = Provider<API>()
            let noteTarget = API(baseURL: server.baseURL, path: "/note")
            let note = try await provider.request(noteTarget, decodingXML: Note.self)
            #expect(note.to == "Ada")
            #expect(note.body == "Hello")
        }
    }

    @Test func anXMLBodyThatDoesNotFitIsAMappingFailure() async throws {
        try await withServer { server in
            server.route("/note") { _ in .text("<note><to>Ada</to></note>") }
            let provider = Provider<API>()
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(API(baseURL: server.baseURL, path: "/note"), decodingXML: Note.self)
            }
            guard case .mappingFailed(_, let failure as XMLMappingFailure) = error else {
                Issue.record("expected mappingFailed(XMLMappingFailure), got \(error)")
                return
            }
            #expect(failure.description.contains("body"))
        }
    }
}
