import Courier
import CourierProtobuf
import Foundation
import SwiftProtobuf

/// Protobuf bodies through `ProtobufMapper`: the first byte picks binary or
/// JSON, the rest is the body, decoded as `google.protobuf.Value` (which nests
/// without end) and `google.protobuf.Struct`, with a small size limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format: ProtobufFormat = bytes[0] & 1 == 0 ? .binary : .json
    let response = Response(statusCode: 200, data: Data(bytes: bytes + 1, count: count - 1))
    _ = try? response.map(ProtobufMapper<Google_Protobuf_Value>(format: format, maximumMessageSize: 64 << 10))
    _ = try? response.map(ProtobufMapper<Google_Protobuf_Struct>(format: format, maximumMessageSize: 64 << 10))
    return 0
}
