import Courier
import Foundation

/// HTTP dates (`Expires`, `Last-Modified`, `Retry-After`): the three formats
/// of RFC 9110 and anything else.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    if let date = HTTPDate.parse(text) {
        precondition(date.timeIntervalSince1970.isFinite, "date \(date) from \(text)")
    }
    return 0
}
