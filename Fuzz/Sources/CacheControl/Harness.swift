import Courier
import Foundation

// The parsers are compiled into this harness from Plugins/Cache (the links
// beside this file): CourierCache itself links swift-crypto, which would
// compile BoringSSL under AddressSanitizer for two harnesses.

/// `Cache-Control` and `Vary` as a server sends them: any text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let control = CacheControl(text)
    if let maxAge = control.maxAge { precondition(maxAge >= 0 && maxAge.isFinite, "max-age \(maxAge) from \(text)") }
    _ = CacheControl.varyNames(text)
    return 0
}
