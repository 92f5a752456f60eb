#if canImport(UIKit)
import Courier
import UIKit

/// The platform's image type: `UIImage` here.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit
import Courier

/// The platform's image type: `NSImage` here.
public typealias PlatformImage = NSImage
#endif

#if canImport(UIKit) || canImport(AppKit)
/// Decodes an image body into a `UIImage` or `NSImage`, after checking its
/// header as ``ImageMapper`` does.
///
/// ```swift
/// imageView.image = try await provider.request(.avatar(7), mapper: PlatformImageMapper())
/// ```
public struct PlatformImageMapper: ResponseMapper {
    /// The most pixels (width × height) an image's header may announce
    /// before it is decoded (see ``ImageMapper/maximumPixelCount``).
    public let maximumPixelCount: Int

    /// Creates a mapper.
    /// - Parameter maximumPixelCount: The most pixels an image may have.
    public init(maximumPixelCount: Int = ImageMapper.defaultMaximumPixelCount) {
        self.maximumPixelCount = maximumPixelCount
    }

    /// Decodes the response's body.
    /// - Throws: ``ImageMappingFailure``; ``ImageMappingFailure/limitExceeded(_:_:)``
    ///   for an image with too many pixels, before anything decodes it.
    public func map(_ response: Response) throws(ImageMappingFailure) -> PlatformImage {
        let image = try ResponseImage(data: response.data)
        try ImageMapper.check(image.header, maximumPixelCount: maximumPixelCount)
        guard let platformImage = image.platformImage else { throw .undecodable(image.format) }
        return platformImage
    }
}

extension ResponseImage {
    /// The image decoded by the platform, or `nil` when it cannot decode it.
    public var platformImage: PlatformImage? { PlatformImage(data: data) }
}
#endif
