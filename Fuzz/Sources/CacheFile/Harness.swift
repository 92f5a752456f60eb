@testable import CourierCache
import Foundation

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
