import Courier
import CourierProtobuf
import CourierTestSupport
import Foundation
import SwiftProtobuf
import Testing

/// A `google.protobuf.Value` that is a list holding a list … `depth` deep.
private func nestedValue(_ depth: Int) -> Google_Protobuf_Value {
    var value = Google_Protobuf_Value(stringValue: "bottom")
    for _ in 0..<depth {
        value = Google_Protobuf_Value(listValue: Google_Protobuf_ListValue(values: [value]))
    }
    return value
}

private func limit(_ error: NetworkError?) -> MappingLimitExceeded? {
    guard case .mappingFailed(_, let underlying)? = error, let failure = underlying as? ProtobufMappingFailure,
          failure.kind == .limitExceeded else { return nil }
    return failure.underlyingError as? MappingLimitExceeded
}

@Suite struct ProtobufLimitsTests {
    @Test func aMessageLargerThanTheLimitIsRefusedBeforeDecoding() async throws {
        let large = Google_Protobuf_Value(stringValue: String(repeating: "x", count: 5 << 20))
        let response = try await served(try large.serializedData(), contentType: "application/x-protobuf")
        let error = #expect(throws: NetworkError.self) { try response.map(ProtobufMapper<Google_Protobuf_Value>()) }
        #expect(limit(error)?.limit == "ProtobufMapper.maximumMessageSize")
        #expect(limit(error)?.maximum == 4 << 20)
        let raised = try response.map(ProtobufMapper<Google_Protobuf_Value>(maximumMessageSize: 8 << 20))
        #expect(raised.stringValue.count == 5 << 20)
    }

    @Test(arguments: ["application/x-protobuf", "application/json"])
    func aMessageNestedPastTheDepthLimitNamesIt(contentType: String) async throws {
        let deep = nestedValue(150)
        let body = contentType == "application/json" ? try deep.jsonUTF8Data() : try deep.serializedData()
        let response = try await served(body, contentType: contentType)
        let error = #expect(throws: NetworkError.self) { try response.map(ProtobufMapper<Google_Protobuf_Value>()) }
        let exceeded = try #require(limit(error))
        #expect(exceeded.limit.hasSuffix("Options.messageDepthLimit"))
        #expect(exceeded.maximum == 100)
        var binary = BinaryDecodingOptions()
        binary.messageDepthLimit = 400
        var json = JSONDecodingOptions()
        json.messageDepthLimit = 400
        #expect(try response.map(ProtobufMapper<Google_Protobuf_Value>(binaryOptions: binary, jsonOptions: json)) == deep)
    }
}
