import Courier

/// Why a body could not be read as an image, in a sentence a person can act on.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public enum ImageMappingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes start like no format Courier knows. `firstBytes` shows
    /// them in hex.
    case notAnImage(firstBytes: String)
    /// The body ends before the header that holds the size.
    case truncated(ImageFormat, needed: Int, available: Int)
    /// The header is there but does not make sense.
    case malformed(ImageFormat, String)
    /// The platform's image type could not decode the bytes.
    case undecodable(ImageFormat)
    /// The header announces more pixels than the mapper's
    /// `maximumPixelCount`: the image is refused before anything decodes it.
    /// The `Courier/MappingLimitExceeded` names the limit.
    case limitExceeded(ImageFormat, MappingLimitExceeded)

    /// The sentence a person reads: what happened and what to do.
    public var description: String {
        switch self {
        case .notAnImage(let firstBytes):
            "the body is not a PNG, JPEG, GIF, WebP, BMP or HEIC image (it starts with \(firstBytes.isEmpty ? "nothing" : firstBytes)); "
                + "check that the URL serves an image"
        case .truncated(let format, let needed, let available):
            "the \(format) image is truncated: its header needs \(needed) bytes but the body has \(available); the download may have been cut short"
        case .malformed(let format, let reason):
            "the \(format) image's header is malformed: \(reason)"
        case .undecodable(let format):
            "the \(format) image could not be decoded on this platform"
        case .limitExceeded(let format, let limit):
            "the \(format) image is refused: \(limit)"
        }
    }
}
