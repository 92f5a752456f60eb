@testable import CourierCache
import Foundation

/// `Cache-Control` and `Vary` as a server sends them: any text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let control = CacheControl(text)
    if let maxAge = control.maxAge { precondition(maxAge >= 0 && maxAge.isFinite, "max-age \(maxAge) from \(text)") }
    _ = CacheKey.varyNames(text)
    return 0
}
