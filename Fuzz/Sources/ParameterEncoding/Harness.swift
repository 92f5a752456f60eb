import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URL and form encoding of parameters: a JSON body becomes the parameters
/// (nested dictionaries, arrays, numbers, booleans, nulls), encoded into the
/// query and into a form body, and as JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
          let url = URL(string: "http://fuzz.invalid/path?x=1")
    else { return 0 }
    let parameters: Parameters = (object as? [String: Any])?.mapValues(sendable) ?? ["value": sendable(object)]
    let request = URLRequest(url: url)
    for encoding in [URLEncoding.default, .queryString, .httpBody] as [URLEncoding] {
        _ = try? encoding.encode(request, with: parameters)
    }
    _ = try? JSONEncoding.default.encode(request, with: parameters)
    return 0
}

/// Foundation's parsed JSON as the Sendable values a target would write.
func sendable(_ value: Any) -> any Sendable {
    switch value {
    case let dictionary as [String: Any]: dictionary.mapValues(sendable)
    case let array as [Any]: array.map(sendable)
    case let string as String: string
    case let number as NSNumber: number.doubleValue
    default: Optional<String>.none
    }
}
