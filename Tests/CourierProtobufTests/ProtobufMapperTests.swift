import Courier
import CourierProtobuf
import CourierTestSupport
import Foundation
import SwiftProtobuf
import Testing

private let ada: Courier_Test_Person = .with {
    $0.id = 9_007_199_254_740_993
    $0.name = "Ada Lovelace"
    $0.emails = ["ada@example.com", "countess@example.org"]
    $0.address = .with { $0.city = "London"; $0.country = "UK" }
}

/// Serves `body` with `contentType` at `/person`, and echoes any POST to
/// `/echo-proto` with the request's own Content-Type.
private func withPersonServer<T: Sendable>(
    body: Data,
    contentType: String?,
    _ run: @Sendable (Provider<TestTarget>, LoopbackServer) async throws -> T
) async throws -> T {
    try await withServer { server in
        server.route("/person") { _ in LoopbackResponse(headers: contentType.map { [("Content-Type", $0)] } ?? [], body: .data(body)) }
        server.route("/echo-proto") { request in
            LoopbackResponse(headers: [("Content-Type", request.header("Content-Type") ?? "")], body: .data(request.body))
        }
        return try await run(Provider<TestTarget>(), server)
    }
}

private func failure(_ error: NetworkError?, body: Data) throws -> ProtobufMappingFailure {
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.data == body)
    return try #require(underlying as? ProtobufMappingFailure)
}

@Suite struct ProtobufMapperTests {
    @Test func decodesBinaryWhenTheContentTypeSaysProtobuf() async throws {
        let body: Data = try ada.serializedBytes()
        let person = try await withPersonServer(body: body, contentType: "application/x-protobuf") { provider, server in
            try await provider.request(TestTarget(server.baseURL, path: "/person"), decodingProtobuf: Courier_Test_Person.self)
        }
        #expect(person == ada)
    }

    @Test func decodesJSONWhenTheContentTypeSaysJSON() async throws {
        let body = try ada.jsonUTF8Data()
        let person = try await withPersonServer(body: body, contentType: "application/json; charset=utf-8") { provider, server in
            try await provider.request(TestTarget(server.baseURL, path: "/person"), mapper: ProtobufMapper<Courier_Test_Person>())
        }
        #expect(person == ada)
        #expect(person.id == 9_007_199_254_740_993)
    }

    @Test func sendsAMessageAsTheBodyWithItsContentType() async throws {
        for format in ProtobufFormat.allCases {
            let (person, recorded) = try await withPersonServer(body: Data(), contentType: nil) { provider, server in
                let target = TestTarget(server.baseURL, path: "/echo-proto", method: .post, task: .protobuf(ada, format: format))
                let person = try await provider.request(target, decodingProtobuf: Courier_Test_Person.self)
                return (person, await server.waitForRequest(to: "/echo-proto"))
            }
            #expect(person == ada, "\(format)")
            #expect(recorded.header("Content-Type") == format.contentType)
        }
    }

    @Test func invalidBinaryIsAMappingFailure() async throws {
        let garbage = Data([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x01])
        let error = await #expect(throws: NetworkError.self) {
            try await withPersonServer(body: garbage, contentType: "application/protobuf") { provider, server in
                try await provider.request(TestTarget(server.baseURL, path: "/person"), decodingProtobuf: Courier_Test_Person.self)
            }
        }
        let reason = try failure(error, body: garbage)
        #expect(reason.kind == .invalidBinary)
        #expect(reason.description.hasPrefix("the body is not a valid binary courier.test.Person message"))
    }

    @Test func invalidJSONIsAMappingFailure() async throws {
        let body = Data(#"{"id": "not a number"}"#.utf8)
        let error = await #expect(throws: NetworkError.self) {
            try await withPersonServer(body: body, contentType: "application/json") { provider, server in
                try await provider.request(TestTarget(server.baseURL, path: "/person"), decodingProtobuf: Courier_Test_Person.self)
            }
        }
        #expect(try failure(error, body: body).kind == .invalidJSON)
    }

    @Test func anotherContentTypeIsNamed() async throws {
        let body = Data("<html></html>".utf8)
        let error = await #expect(throws: NetworkError.self) {
            try await withPersonServer(body: body, contentType: "text/html") { provider, server in
                try await provider.request(TestTarget(server.baseURL, path: "/person"), decodingProtobuf: Courier_Test_Person.self)
            }
        }
        let reason = try failure(error, body: body)
        #expect(reason.kind == .unsupportedContentType)
        #expect(reason.description.contains("“text/html”"))
    }

    @Test func readsFormatsFromContentTypes() {
        #expect(ProtobufFormat(contentType: "application/vnd.google.protobuf; proto=courier.test.Person") == .binary)
        #expect(ProtobufFormat(contentType: " Application/JSON ") == .json)
        #expect(ProtobufFormat(contentType: "application/problem+json") == .json)
        #expect(ProtobufFormat(contentType: "text/plain") == nil)
    }
}
