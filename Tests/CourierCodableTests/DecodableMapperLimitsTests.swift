import Courier
import CourierCodable
import CourierTestSupport
import Foundation
import Testing

/// Any JSON array nesting, so a test decodes whatever depth it is given.
private indirect enum Nested: Decodable, Sendable {
    case list([Nested])
    case leaf

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .leaf : .list(try container.decode([Nested].self))
    }
}

private func nested(_ depth: Int) -> Data {
    Data((String(repeating: "[", count: depth) + "null" + String(repeating: "]", count: depth)).utf8)
}

@Suite(.serialized) struct DecodableMapperLimitsTests {
    @Test func aBodyNestedPastTheLimitIsRefusedBeforeDecoding() async throws {
        let response = try await served(nested(200), contentType: "application/json")
        let error = #expect(throws: NetworkError.self) { try response.map(DecodableMapper<Nested>()) }
        guard case .mappingFailed(_, let underlying)? = error, let failure = underlying as? DecodingFailure else {
            Issue.record("expected mappingFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .limitExceeded)
        #expect((failure.underlyingError as? MappingLimitExceeded)?.limit == "DecodableMapper.maximumDepth")
        #expect(failure.description.contains("deeper than 128 levels"))
    }

    @Test func theLimitIsConfigurable() async throws {
        let response = try await served(nested(200), contentType: "application/json")
        let decoded = try response.map(DecodableMapper<Nested>(maximumDepth: 256))
        guard case .list = decoded else {
            Issue.record("expected a list, got \(decoded)")
            return
        }
        let keyed = try await served(Data(#"{"data": [[[[1]]]]}"#.utf8), contentType: "application/json")
        #expect(throws: NetworkError.self) { try keyed.map(DecodableMapper<[[[[Int]]]]>(atKeyPath: "data", maximumDepth: 4)) }
        #expect(try keyed.map(DecodableMapper<[[[[Int]]]]>(atKeyPath: "data", maximumDepth: 5)) == [[[[1]]]])
    }

    @Test func aMegabyteOfBracketsIsRefusedInBoundedMemoryAndTime() async throws {
        try await MeasuredAlone.run(suite: "DecodableMapperLimitsTests", case: "aMegabyteOfBracketsIsRefusedInBoundedMemoryAndTime") {
            let response = try await served(nested(500_000), contentType: "application/json")
            let measured = await PeakMemory.measure { () -> NetworkError? in
                do throws(NetworkError) {
                    _ = try response.map(DecodableMapper<Nested>())
                    return nil
                } catch {
                    return error
                }
            }
            guard case .mappingFailed(_, let underlying)? = measured.result else {
                Issue.record("expected mappingFailed, got \(String(describing: measured.result))")
                return
            }
            #expect((underlying as? DecodingFailure)?.kind == .limitExceeded)
            MeasuredAlone.report("Codable: a megabyte of brackets: the resident memory grew by \(measured.growth) MiB in \(measured.duration)")
            #expect(measured.growth < 64, "the resident memory grew by \(measured.growth) MiB")
            #expect(measured.duration < .seconds(1), "took \(measured.duration)")
        }
    }
}
