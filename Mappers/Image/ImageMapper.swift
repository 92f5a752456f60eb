import Courier

/// Reads an image body: detects PNG, JPEG, GIF, WebP, BMP or HEIC from the
/// bytes (whatever `Content-Type` says) and reads its pixel size from the
/// header without decoding it.
///
/// ```swift
/// let image = try await provider.request(.avatar(7), mapper: ImageMapper())
/// ```
public struct ImageMapper: ResponseMapper {
    /// The most pixels (width × height) an image's header may announce:
    /// ``defaultMaximumPixelCount`` unless set. A larger image fails with
    /// ``ImageMappingFailure/limitExceeded(_:_:)`` before anything decodes
    /// it; a decoder would need 4 bytes for each of its pixels.
    public let maximumPixelCount: Int

    /// The default of ``maximumPixelCount``: 64 Mi pixels, an 8192 × 8192
    /// image, 256 MiB once decoded.
    public static let defaultMaximumPixelCount = 8192 * 8192

    /// Creates a mapper.
    /// - Parameter maximumPixelCount: The most pixels an image may have.
    public init(maximumPixelCount: Int = defaultMaximumPixelCount) {
        self.maximumPixelCount = maximumPixelCount
    }

    /// Reads the response's body.
    /// - Throws: ``ImageMappingFailure``.
    public func map(_ response: Response) throws(ImageMappingFailure) -> ResponseImage {
        let image = try ResponseImage(data: response.data)
        try Self.check(image.header, maximumPixelCount: maximumPixelCount)
        return image
    }

    /// Refuses a header that announces more than `maximumPixelCount` pixels.
    static func check(_ header: ImageHeader, maximumPixelCount: Int) throws(ImageMappingFailure) {
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        guard overflow || pixels > maximumPixelCount else { return }
        throw .limitExceeded(header.format, MappingLimitExceeded(
            limit: "ImageMapper.maximumPixelCount", maximum: maximumPixelCount,
            reason: "is a \(header.width) × \(header.height) image, more than \(maximumPixelCount) pixels"
        ))
    }
}

extension Provider {
    /// Sends the request for `target` and reads its body as an image (see
    /// ``ImageMapper``).
    ///
    /// ```swift
    /// let avatar = try await provider.requestImage(.avatar(7))
    /// print(avatar.width, avatar.height)
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - options: Per-call options for plugins.
    /// - Returns: The image's bytes, format and size.
    /// - Throws: `Courier/NetworkError`; a body that is no image, or a
    ///   truncated one, is `.mappingFailed(response, ImageMappingFailure)`.
    public func requestImage(_ target: Target, options: RequestOptions = RequestOptions()) async throws(NetworkError) -> ResponseImage {
        try await request(target, mapper: ImageMapper(), options: options)
    }
}
