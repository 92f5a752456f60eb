import Courier
import CourierCodable
import CourierJSON
import CourierString
import Foundation

/// Key paths into JSON bodies: the first line is the key path, the rest the
/// body, through every mapper that takes a key path.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let split = data.firstIndex(of: 0x0A) ?? data.endIndex
    let keyPath = String(decoding: data[..<split], as: UTF8.self)
    let body = split < data.endIndex ? data[data.index(after: split)...] : Data()
    let response = Response(statusCode: 200, data: Data(body))
    _ = try? response.map(JSONValueMapper(atKeyPath: keyPath, failsOnEmptyData: false))
    _ = try? response.map(DecodableMapper<[String: String]>(atKeyPath: keyPath, failsOnEmptyData: false))
    _ = try? response.map(StringMapper(atKeyPath: keyPath))
    return 0
}
