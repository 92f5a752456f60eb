// The code of Mappers/String/CourierString.docc/CourierString.md.
// Needs the test target to depend on CourierString.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierString

@Suite struct CourierStringCatalogSnippets {
    @Test func textIsReadInItsCharset() async throws {
        try await withServer { server in
            server.route("/page") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/plain; charset=iso-8859-1")],
                                 body: .data(Data([0x63, 0x61, 0x66, 0xE9])))
            }
            server.route("/article") { _ in .json(Data(#"{"data": {"title": "Hello"}}"#.utf8)) }
            let provider = Provider<API>()
            let page = API(baseURL: server.baseURL, path: "/page")
            let article = API(baseURL: server.baseURL, path: "/article")
            let text = try await provider.requestString(page)
            let title = try await provider.requestString(article, atKeyPath: "data.title")
            #expect(text == "café")
            #expect(title == "Hello")
        }
    }

    @Test func aStringMapperWithACharsetOverridesTheResponse() throws {
        let response = Response(statusCode: 200, data: Data([0x80]), url: URL(string: "https://example.com")!,
                                headerFields: ["Content-Type": "text/plain; charset=utf-8"])
        #expect(try response.map(StringMapper(charset: .windows1252)) == "€")
        #expect(Charset(label: "latin1") == .isoLatin1)
    }
}
