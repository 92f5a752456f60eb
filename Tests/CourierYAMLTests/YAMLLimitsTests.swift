import Courier
import CourierTestSupport
import CourierYAML
import Foundation
import Testing

/// Any YAML value, so a test decodes whatever a document holds.
private indirect enum AnyYAML: Decodable, Sendable {
    case scalar(String)
    case list([AnyYAML])
    case map([String: AnyYAML])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let list = try? container.decode([AnyYAML].self) {
            self = .list(list)
        } else if let map = try? container.decode([String: AnyYAML].self) {
            self = .map(map)
        } else {
            self = .scalar(try container.decode(String.self))
        }
    }
}

/// `levels` anchors, each a list of nine aliases of the one before: the first
/// holds nine strings, the last stands for 9^levels of them.
private func aliasBomb(levels: Int) -> String {
    let names = (0..<levels).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))) }
    var lines = ["a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    for (previous, name) in zip(names, names.dropFirst()) {
        lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
    }
    return lines.joined(separator: "\n") + "\n"
}

private func mapped<Output: Decodable>(
    _ yaml: String, as type: Output.Type, limits: YAMLLimits = YAMLLimits()
) async throws -> Result<Output, NetworkError> {
    let response = try await served(Data(yaml.utf8), contentType: "application/yaml")
    return Result { () throws(NetworkError) in try response.map(YAMLDecodableMapper<Output>(limits: limits)) }
}

private func exceededLimit<Output>(_ result: Result<Output, NetworkError>) -> MappingLimitExceeded? {
    guard case .failure(.mappingFailed(_, let underlying)) = result else { return nil }
    return (underlying as? YAMLMappingFailure)?.underlyingError as? MappingLimitExceeded
}

@Suite(.serialized) struct YAMLLimitsTests {
    /// The document of the report: 352 bytes, nine levels of nine aliases.
    @Test func anAliasBombIsRefusedInBoundedMemoryAndTime() async throws {
        try await MeasuredAlone.run(suite: "YAMLLimitsTests", case: "anAliasBombIsRefusedInBoundedMemoryAndTime") {
            let bomb = aliasBomb(levels: 9)
            #expect(bomb.utf8.count < 400)
            // Only the mapping is measured: the loopback round trip before it
            // is not the decoder's, and on a loaded machine it takes seconds.
            let response = try await served(Data(bomb.utf8), contentType: "application/yaml")
            let measured = await PeakMemory.measure {
                Result { () throws(NetworkError) in try response.map(YAMLDecodableMapper<[String: AnyYAML]>()) }
            }
            let limit = try #require(exceededLimit(measured.result))
            #expect(limit.limit == "YAMLLimits.maximumAliasExpansion")
            MeasuredAlone.report("YAML: an alias bomb: the resident memory grew by \(measured.growth) MiB in \(measured.duration)")
            #expect(measured.growth < 64, "the resident memory grew by \(measured.growth) MiB")
            #expect(measured.duration < .seconds(2), "took \(measured.duration)")
        }
    }

    @Test func aliasesThatExpandPastTheLimitAreRefusedWithTheLimitsName() async throws {
        let result = try await mapped(aliasBomb(levels: 6), as: [String: AnyYAML].self)
        guard case .failure(.mappingFailed(let response, let underlying)) = result,
              let failure = underlying as? YAMLMappingFailure else {
            Issue.record("expected mappingFailed, got \(result)")
            return
        }
        #expect(response.statusCode == 200)
        #expect(failure.description.contains("YAMLLimits.maximumAliasExpansion"))
        #expect(failure.description.contains("raise"))
        #expect((failure.underlyingError as? MappingLimitExceeded)?.maximum == 100_000)
    }

    @Test func aliasesWithinTheLimitStillDecode() async throws {
        let result = try await mapped(aliasBomb(levels: 3), as: [String: AnyYAML].self)
        guard case .success(let document) = result, case .list(let top)? = document["c"] else {
            Issue.record("expected a decoded document, got \(result)")
            return
        }
        #expect(top.count == 9)
        let fourLevels = aliasBomb(levels: 4)
        #expect((try? await mapped(fourLevels, as: [String: AnyYAML].self).get()) != nil)
        let lowered = try await mapped(fourLevels, as: [String: AnyYAML].self, limits: YAMLLimits(maximumAliasExpansion: 1_000))
        #expect(exceededLimit(lowered)?.maximum == 1_000)
    }

    @Test func nestingPastTheLimitIsRefused() async throws {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let limit = exceededLimit(try await mapped(deep, as: AnyYAML.self))
        #expect(limit?.limit == "YAMLLimits.maximumDepth")
        #expect(limit?.maximum == 128)
        let shallow = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? await mapped(shallow, as: AnyYAML.self).get()) != nil)
    }

    /// An alias puts its whole node where it stands, so a document can nest
    /// deeper than it is written.
    @Test func nestingThatAliasesBuildIsRefused() async throws {
        let half = String(repeating: "[", count: 70) + "x" + String(repeating: "]", count: 70)
        let yaml = "a: &a \(half)\nb: " + String(repeating: "[", count: 70) + "*a" + String(repeating: "]", count: 70) + "\n"
        let limit = exceededLimit(try await mapped(yaml, as: [String: AnyYAML].self))
        #expect(limit?.limit == "YAMLLimits.maximumDepth")
    }
}
