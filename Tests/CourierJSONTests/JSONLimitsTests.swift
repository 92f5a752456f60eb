import Courier
import CourierJSON
import CourierTestSupport
import Foundation
import Testing

private func nested(_ depth: Int) -> Data {
    Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
}

private func limitKind(_ error: NetworkError) -> (JSONMappingFailure.Kind, MappingLimitExceeded?)? {
    guard case .mappingFailed(_, let underlying) = error, let failure = underlying as? JSONMappingFailure else { return nil }
    return (failure.kind, failure.underlyingError as? MappingLimitExceeded)
}

@Suite(.serialized) struct JSONLimitsTests {
    @Test func aBodyNestedPastTheLimitIsRefusedByBothMappers() async throws {
        let response = try await served(nested(200), contentType: "application/json")
        let error = #expect(throws: NetworkError.self) { try response.map(JSONValueMapper()) }
        let value = try #require(error.flatMap(limitKind))
        #expect(value.0 == .limitExceeded)
        #expect(value.1?.limit == "JSONValueMapper.maximumDepth")
        #expect("\(try #require(error))".contains("raise JSONValueMapper.maximumDepth"))
        let untyped = #expect(throws: NetworkError.self) { try response.map(JSONMapper()) }
        #expect(untyped.flatMap(limitKind)?.1?.limit == "JSONMapper.maximumDepth")
    }

    @Test func aBodyWithinTheLimitDecodesAndTheLimitIsConfigurable() async throws {
        let response = try await served(nested(100), contentType: "application/json")
        #expect(try response.map(JSONValueMapper()).arrayValue?.count == 1)
        let error = #expect(throws: NetworkError.self) { try response.map(JSONValueMapper(maximumDepth: 50)) }
        #expect(error.flatMap(limitKind)?.1?.maximum == 50)
    }

    /// Brackets in strings are text, not nesting.
    @Test func bracketsInsideStringsDoNotCount() async throws {
        let text = "[\"" + String(repeating: "[{\\\"", count: 300) + "\"]"
        let response = try await served(Data(text.utf8), contentType: "application/json")
        #expect(try response.map(JSONValueMapper()).arrayValue?.count == 1)
    }

    /// A megabyte of brackets would exhaust a recursive parser's stack.
    @Test func aMegabyteOfBracketsIsRefusedInBoundedMemoryAndTime() async throws {
        try await MeasuredAlone.run(suite: "JSONLimitsTests", case: "aMegabyteOfBracketsIsRefusedInBoundedMemoryAndTime") {
            let response = try await served(nested(500_000), contentType: "application/json")
            let measured = await PeakMemory.measure { () -> NetworkError? in
                do throws(NetworkError) {
                    _ = try response.map(JSONMapper())
                    return nil
                } catch {
                    return error
                }
            }
            #expect(measured.result.flatMap(limitKind)?.0 == .limitExceeded)
            MeasuredAlone.report("JSON: a megabyte of brackets: the resident memory grew by \(measured.growth) MiB in \(measured.duration)")
            #expect(measured.growth < 64, "the resident memory grew by \(measured.growth) MiB")
            #expect(measured.duration < .seconds(1), "took \(measured.duration)")
        }
    }
}
