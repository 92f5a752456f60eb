import Foundation

/// An image body: its bytes, with the format and pixel size read from its
/// header.
///
/// ```swift
/// let avatar = try await provider.requestImage(.avatar(userID))
/// print(avatar.format, avatar.width, avatar.height) // JPEG 512 512
/// #if canImport(UIKit)
/// imageView.image = avatar.platformImage
/// #endif
/// ```
public struct ResponseImage: Sendable, Equatable {
    /// The file's bytes, as received.
    public let data: Data
    /// The format and size from the header.
    public let header: ImageHeader

    /// Reads the header of `data`.
    /// - Parameter data: An image file.
    /// - Throws: ``ImageMappingFailure`` when `data` is no known image or its
    ///   header is cut short or malformed.
    public init(data: Data) throws(ImageMappingFailure) {
        self.header = try ImageHeader(data: data)
        self.data = data
    }

    /// The file format.
    public var format: ImageFormat { header.format }
    /// The width in pixels.
    public var width: Int { header.width }
    /// The height in pixels.
    public var height: Int { header.height }
}
