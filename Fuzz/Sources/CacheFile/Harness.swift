import Courier
import Foundation

// The parsers are compiled into this harness from Plugins/Cache (the links
// beside this file): CourierCache itself links swift-crypto, which would
// compile BoringSSL under AddressSanitizer for two harnesses.

/// A cache file as the disk holds it: written by any version, truncated,
/// corrupted or planted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let entry = CacheFileFormat.decode(data) {
        // What decodes must encode again.
        precondition(CacheFileFormat.encode(entry) != nil, "a decoded entry does not encode")
    }
    return 0
}
