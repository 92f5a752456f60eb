import CourierImage
import Foundation

/// Image headers: PNG, GIF, JPEG, WebP, BMP, HEIC and bytes that only look
/// like one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let header = try? ImageHeader(data: Data(bytes: bytes, count: count)) {
        precondition(header.width > 0 && header.height > 0, "an image of \(header.width)×\(header.height)")
    }
    return 0
}
