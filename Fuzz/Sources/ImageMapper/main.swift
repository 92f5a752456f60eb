import Courier
import CourierImage
import Foundation

/// Image bodies through `ImageMapper` with a small pixel limit: whatever it
/// accepts has at most that many pixels.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let response = Response(statusCode: 200, data: Data(bytes: bytes, count: count))
    if let image = try? response.map(ImageMapper(maximumPixelCount: 1 << 20)) {
        let (pixels, overflow) = image.width.multipliedReportingOverflow(by: image.height)
        precondition(!overflow && pixels <= 1 << 20, "an image of \(image.width)×\(image.height) passed the limit")
    }
    return 0
}
