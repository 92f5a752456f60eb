import Courier
import Foundation

extension Response {
    /// Reads the body as an image: its format and pixel size from the header,
    /// with the bytes (Moya's `mapImage`). On Apple platforms,
    /// `ResponseImage.platformImage` (Apple platforms) makes a `UIImage` or `NSImage` of it.
    ///
    /// ```swift
    /// let image = try response.mapImage()
    /// print(image.format, image.width, image.height)
    /// ```
    /// - Returns: The image.
    /// - Throws: `NetworkError/mappingFailed(_:_:)` with this response and an
    ///   ``ImageMappingFailure`` when the body is not an image Courier reads.
    public func mapImage() throws(NetworkError) -> ResponseImage {
        try map(ImageMapper())
    }
}
