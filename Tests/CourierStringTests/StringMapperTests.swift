import Courier
import CourierString
import CourierTestSupport
import Foundation
import Testing

/// Serves `body` with `contentType` and returns what `mapper` makes of it.
private func map(_ body: Data, contentType: String?, with mapper: StringMapper = StringMapper()) async throws -> String {
    try await withServer { server in
        server.route("/text") { _ in
            LoopbackResponse(headers: contentType.map { [("Content-Type", $0)] } ?? [], body: .data(body))
        }
        return try await Provider<TestTarget>().request(TestTarget(server.baseURL, path: "/text"), mapper: mapper)
    }
}

private func failure(of error: NetworkError?, body: Data) throws -> StringMappingFailure {
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.data == body)
    return try #require(underlying as? StringMappingFailure)
}

@Suite struct StringMapperTests {
    @Test func readsUTF8AndDropsItsByteOrderMark() async throws {
        let text = try await map(Data([0xEF, 0xBB, 0xBF]) + Data("héllo €".utf8), contentType: "text/plain; charset=utf-8")
        #expect(text == "héllo €")
    }

    @Test func readsUTF16InTheByteOrderItsMarkSays() async throws {
        let little = Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00, 0x3D, 0xD8, 0x00, 0xDE])
        let big = Data([0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00])
        #expect(try await map(little, contentType: "text/plain; charset=UTF-16") == "hé😀")
        #expect(try await map(big, contentType: "text/plain; charset=\"utf-16\"") == "hé😀")
        #expect(try await map(little, contentType: nil) == "hé😀")
    }

    @Test func readsSingleByteCharsets() async throws {
        #expect(try await map(Data([0x63, 0x61, 0x66, 0xE9]), contentType: "text/plain; charset=ISO-8859-1") == "café")
        #expect(try await map(Data([0x80, 0x20, 0x93, 0x71, 0x94]), contentType: "text/html; charset=windows-1252") == "€ “q”")
        #expect(try await map(Data("plain".utf8), contentType: "text/plain; charset=us-ascii") == "plain")
    }

    @Test func aByteOrderMarkWinsOverTheHeader() async throws {
        let utf8 = Data([0xEF, 0xBB, 0xBF]) + Data("héllo".utf8)
        #expect(try await map(utf8, contentType: "text/plain; charset=iso-8859-1") == "héllo")
        let utf16 = Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00])
        #expect(try await map(utf16, contentType: "text/plain; charset=windows-1252") == "hé")
    }

    @Test func windows1252UndefinedBytesMapToTheSameCodePoint() async throws {
        let body = Data([0x61, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0x80])
        let text = try await map(body, contentType: "text/plain; charset=windows-1252")
        #expect(text.unicodeScalars.map(\.value) == [0x61, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0x20AC])
    }

    @Test func aMapperCharsetOverridesTheHeader() async throws {
        let text = try await map(Data([0xE9]), contentType: "text/plain; charset=utf-8", with: StringMapper(charset: .isoLatin1))
        #expect(text == "é")
    }

    @Test func bytesInTheWrongCharsetAreAMappingFailure() async throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])
        let error = await #expect(throws: NetworkError.self) { try await map(latin1, contentType: "text/plain; charset=utf-8") }
        let reason = try failure(of: error, body: latin1)
        #expect(reason == .invalidBytes(.utf8))
        #expect(reason.description.contains("not valid utf-8 text"))

        let high = Data("née".utf8)
        let asciiError = await #expect(throws: NetworkError.self) { try await map(high, contentType: "text/plain; charset=us-ascii") }
        #expect(try failure(of: asciiError, body: high) == .invalidBytes(.usASCII))

        let odd = Data([0xFF, 0xFE, 0x68])
        let utf16Error = await #expect(throws: NetworkError.self) { try await map(odd, contentType: "text/plain; charset=utf-16") }
        #expect(try failure(of: utf16Error, body: odd) == .invalidBytes(.utf16))
    }

    @Test func anUnknownCharsetIsNamed() async throws {
        let body = Data("x".utf8)
        let error = await #expect(throws: NetworkError.self) { try await map(body, contentType: "text/plain; charset=klingon-8") }
        #expect(try failure(of: error, body: body) == .unsupportedCharset("klingon-8"))
    }

    @Test func followsAKeyPathToAStringField() async throws {
        let body = Data(#"{"data":{"posts":[{"title":"Grüße"}],"count":1}}"#.utf8)
        let title = try await map(body, contentType: "application/json", with: StringMapper(atKeyPath: "data.posts[0].title"))
        #expect(title == "Grüße")
        let error = await #expect(throws: NetworkError.self) {
            try await map(body, contentType: "application/json", with: StringMapper(atKeyPath: "data.count"))
        }
        #expect(try failure(of: error, body: body) == .notAString(path: "data.count", found: "a number (1)"))
    }

    @Test func providerSugarReadsText() async throws {
        try await withServer { server in
            server.route("/hello") { _ in .text("hello, world") }
            let text = try await Provider<TestTarget>().requestString(TestTarget(server.baseURL, path: "/hello"))
            #expect(text == "hello, world")
        }
    }

    @Test func parsesCharsetLabels() {
        #expect(Charset.label(inContentType: "text/plain; format=flowed; Charset=\"Latin1\"") == "Latin1")
        #expect(Charset(label: "Latin1") == .isoLatin1)
        #expect(Charset(label: "CP1252") == .windows1252)
        #expect(Charset.label(inContentType: "application/json") == nil)
    }
}
