@testable import CourierAuth
import Foundation

/// The credential file: JSON written by the store, or anything else.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let credential = try? FileCredentialStore.decode(data) {
        _ = credential.isExpired(at: Date(), leeway: 30)
    }
    return 0
}
