import Courier
import CourierCodable
import CourierJSON
import Foundation

/// The depth of arrays and objects in a value.
func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
    default: 0
    }
}

/// JSON bodies through `JSONValueMapper`, `JSONMapper` and `DecodableMapper`
/// with a small depth limit: whatever decodes nests no deeper than it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let response = Response(statusCode: 200, data: Data(bytes: bytes, count: count))
    if let value = try? response.map(JSONValueMapper(failsOnEmptyData: false, maximumDepth: 16)) {
        precondition(depth(value) <= 16, "a value \(depth(value)) deep passed a limit of 16")
    }
    _ = try? response.map(JSONMapper(failsOnEmptyData: false, maximumDepth: 16))
    _ = try? response.map(DecodableMapper<JSONValue>(failsOnEmptyData: false, maximumDepth: 16))
    return 0
}
