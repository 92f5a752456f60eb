import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A response made from status and header fields (as a transport on another
/// client makes it) reads like one made from an `HTTPURLResponse`.
@Suite struct ResponseTests {
    let url = URL(string: "http://127.0.0.1:8080/items?page=2")!
    let fields = ["Content-Type": "application/json; charset=utf-8", "X-Request-ID": "a1", "Set-Cookie": "a=1, b=2"]

    @Test func headerFieldsAreFoundInAnySpellingWithoutAnHTTPURLResponse() {
        let response = Response(statusCode: 201, data: Data("{}".utf8), url: url, headerFields: fields)
        #expect(response.value(forHTTPHeaderField: "content-type") == "application/json; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "X-REQUEST-ID") == "a1")
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2")
        #expect(response.value(forHTTPHeaderField: "ETag") == nil)
    }

    @Test func theHTTPURLResponseCarriesTheSameStatusURLAndFields() throws {
        let deferred = Response(statusCode: 201, data: Data(), url: url, headerFields: fields)
        let made = try #require(HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: fields))
        let http = try #require(deferred.response)
        #expect(http.statusCode == 201)
        #expect(http.url == url)
        #expect(http.mimeType == made.mimeType)
        #expect(http.textEncodingName == made.textEncodingName)
        for name in fields.keys {
            #expect(http.value(forHTTPHeaderField: name) == made.value(forHTTPHeaderField: name))
            #expect(deferred.value(forHTTPHeaderField: name) == Response(statusCode: 201, data: Data(), response: made)
                .value(forHTTPHeaderField: name))
        }
        // Made once and kept: every read returns the same object.
        #expect(deferred.response === http)
    }

    @Test func theHTTPURLResponseIsMadeOnceWhenManyTasksReadItAtOnceAndACopyKeepsIt() async {
        let response = Response(statusCode: 200, data: Data(), url: url, headerFields: fields)
        let made = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<16 {
                group.addTask { response.response.map(ObjectIdentifier.init) }
            }
            var made = Set<ObjectIdentifier?>()
            for await identifier in group { made.insert(identifier) }
            return made
        }
        #expect(made.count == 1)
        #expect(made.first != nil)
        #expect(response.replacing(data: Data("b".utf8)).response === response.response)
    }

    @Test func aReplacedBodyKeepsTheHeaders() {
        let response = Response(statusCode: 200, data: Data("a".utf8), url: url, headerFields: fields)
            .replacing(data: Data("b".utf8))
        #expect(response.data == Data("b".utf8))
        #expect(response.value(forHTTPHeaderField: "x-request-id") == "a1")
        #expect(response.response?.statusCode == 200)
    }

    @Test func aReplacedHTTPResponseReplacesStatusAndHeaders() throws {
        let other = try #require(HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: ["ETag": "\"v2\""]))
        let response = Response(statusCode: 200, data: Data(), url: url, headerFields: fields).replacing(response: other)
        #expect(response.statusCode == 304)
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v2\"")
        #expect(response.value(forHTTPHeaderField: "X-Request-ID") == nil)
    }
}
