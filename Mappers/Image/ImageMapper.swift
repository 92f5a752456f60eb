import Courier

/// Reads an image body: detects PNG, JPEG, GIF, WebP, BMP or HEIC from the
/// bytes (whatever `Content-Type` says) and reads its pixel size from the
/// header without decoding it.
///
/// ```swift
/// let image = try await provider.request(.avatar(7), mapper: ImageMapper())
/// ```
public struct ImageMapper: ResponseMapper {
    /// Creates a mapper.
    public init() {}

    /// Reads the response's body.
    /// - Throws: ``ImageMappingFailure``.
    public func map(_ response: Response) throws(ImageMappingFailure) -> ResponseImage {
        try ResponseImage(data: response.data)
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
