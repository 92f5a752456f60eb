@testable import Courier
import Foundation
import Testing

/// The fields of a response head as a transport hands them over: read
/// without a dictionary, and the same as one when one is made.
@Suite struct HeaderFieldListTests {
    static let pairs: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("Content-Length", "12"), ("set-cookie", "b=2"),
    ]

    @Test func aRepeatedNameJoinsUnderItsFirstSpelling() {
        let fields = HeaderFieldList(pairs: Self.pairs)
        #expect(fields.dictionary == ["Content-Type": "application/json", "Set-Cookie": "a=1, b=2", "Content-Length": "12"])
        #expect(fields.value("SET-COOKIE") == "a=1, b=2")
        #expect(fields.value("content-type") == "application/json")
        #expect(fields.value("Location") == nil)
    }

    /// Pairs and the dictionary made from them answer every lookup alike.
    @Test func pairsAndTheirDictionaryAgree() {
        let pairs = HeaderFieldList(pairs: Self.pairs)
        let dictionary = HeaderFieldList(pairs.dictionary)
        for name in ["Content-Type", "set-cookie", "CONTENT-LENGTH", "ETag"] {
            #expect(pairs.value(name) == dictionary.value(name), "\(name)")
        }
        #expect(pairs == dictionary)
        #expect(HeaderFieldList(pairs: []).dictionary.isEmpty)
    }

    @Test(arguments: [Int64(40), nil])
    func afterDecodingDropsTheEncodingAndSetsTheLength(length: Int64?) {
        let encoded = Self.pairs + [(name: "content-encoding", value: "gzip")]
        for fields in [HeaderFieldList(pairs: encoded), HeaderFieldList(HeaderFieldList(pairs: encoded).dictionary)] {
            let decoded = fields.afterDecoding(decodedLength: length)
            #expect(decoded.value("Content-Encoding") == nil)
            #expect(decoded.value("Content-Length") == length.map(String.init))
            #expect(decoded.value("Set-Cookie") == "a=1, b=2")
        }
    }

    /// A transport's response built from pairs reads the same through its
    /// public dictionary, and a dictionary set on it replaces the pairs.
    @Test func aTransportResponseFromPairsReadsAsADictionary() throws {
        let url = try #require(URL(string: "http://example.com/a"))
        var response = TransportResponse(statusCode: 200, url: url, headerFieldPairs: Self.pairs, body: ResponseBody(Data()), contentDecoded: false)
        #expect(response.headerFields["Set-Cookie"] == "a=1, b=2")
        #expect(response.value(forHTTPHeaderField: "content-length") == "12")
        response.headerFields = ["ETag": "\"v1\""]
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == nil)
    }
}
