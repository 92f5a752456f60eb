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
    /// Creates a mapper.
    public init() {}

    /// Decodes the response's body.
    /// - Throws: ``ImageMappingFailure``.
    public func map(_ response: Response) throws(ImageMappingFailure) -> PlatformImage {
        let image = try ResponseImage(data: response.data)
        guard let platformImage = image.platformImage else { throw .undecodable(image.format) }
        return platformImage
    }
}

extension ResponseImage {
    /// The image decoded by the platform, or `nil` when it cannot decode it.
    public var platformImage: PlatformImage? { PlatformImage(data: data) }
}
#endif
