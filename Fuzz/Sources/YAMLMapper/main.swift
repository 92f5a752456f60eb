import Courier
import CourierYAML
import Foundation

/// Any YAML value, so every document decodes as far as its shape allows.
indirect enum AnyYAML: Decodable {
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

/// YAML bodies through `YAMLDecodableMapper` with small limits, so that
/// inputs reach them: a body past a limit must fail with the limit, never
/// grow or crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let response = Response(statusCode: 200, data: Data(bytes: bytes, count: count))
    let limits = YAMLLimits(maximumDepth: 32, maximumAliasExpansion: 2_000)
    _ = try? response.map(YAMLDecodableMapper<AnyYAML>(limits: limits))
    _ = try? response.map(YAMLDecodableMapper<[String: String]>(limits: limits))
    return 0
}
