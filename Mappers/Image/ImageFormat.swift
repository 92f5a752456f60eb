/// An image file format Courier recognises from a file's first bytes.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Portable Network Graphics.
    case png
    /// JPEG (JFIF or Exif).
    case jpeg
    /// GIF 87a or 89a.
    case gif
    /// WebP, lossy (VP8), lossless (VP8L) or extended (VP8X).
    case webp
    /// Windows bitmap.
    case bmp
    /// HEIF holding HEVC images (`heic`, `heix`, `hevc`, … brands).
    case heic

    /// The format's usual MIME type.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .bmp: "image/bmp"
        case .heic: "image/heic"
        }
    }

    /// The format's name in capitals (`PNG`, `JPEG`).
    public var description: String { rawValue.uppercased() }
}
