// The code of Mappers/Protobuf/CourierProtobuf.docc/CourierProtobuf.md.
// Needs the test target to depend on CourierProtobuf and on SwiftProtobuf.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierProtobuf
import SwiftProtobuf

struct Greet: TargetType {
    let baseURL: URL
    let message: Google_Protobuf_StringValue
    var path: String { "/greet" }
    var method: HTTPMethod { .post }
    var task: RequestTask { .protobuf(message) }
    var headers: [String: String]? { nil }
}

@Suite struct CourierProtobufCatalogSnippets {
    @Test func aBinaryMessageDecodes() async throws {
        let hello = Google_Protobuf_StringValue.with { $0.value = "hello" }
        let body: Data = try hello.serializedBytes()
        try await withServer { server in
            server.route("/greeting") { _ in
                LoopbackResponse(headers: [("Content-Type", "application/x-protobuf")], body: .data(body))
            }
            let provider = Provider<API>()
            let greetingTarget = API(baseURL: server.baseURL, path: "/greeting")
            let greeting = try await provider.request(greetingTarget, decodingProtobuf: Google_Protobuf_StringValue.self)
            #expect(greeting.value == "hello")
        }
    }

    @Test func aMessageIsSentInItsFormat() async throws {
        let hello = Google_Protobuf_StringValue.with { $0.value = "hello" }
        try await withServer { server in
            server.route("/greet") { request in
                LoopbackResponse(headers: [("Content-Type", request.header("Content-Type") ?? "")], body: .data(request.body))
            }
            let provider = Provider<Greet>()
            let echoed = try await provider.request(Greet(baseURL: server.baseURL, message: hello),
                                                    mapper: ProtobufMapper<Google_Protobuf_StringValue>())
            #expect(echoed == hello)
            #expect(server.requests(to: "/greet").first?.header("Content-Type") == "application/x-protobuf")
        }
    }
}
