import Foundation

/// An image's format and pixel size, read from the first bytes of the file
/// without decoding it.
///
/// ```swift
/// let header = try ImageHeader(data: bytes)
/// print(header.format, header.width, header.height) // PNG 640 480
/// ```
public struct ImageHeader: Sendable, Equatable, CustomStringConvertible {
    /// The file format, detected from the bytes (never from `Content-Type`).
    public let format: ImageFormat
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int

    /// Creates a header from known values.
    /// - Parameters:
    ///   - format: The file format.
    ///   - width: The width in pixels.
    ///   - height: The height in pixels.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Reads the format and size from the start of an image file.
    /// - Parameter data: The file's bytes; only the header needs to be there.
    /// - Throws: ``ImageMappingFailure``: the bytes are no known image, or
    ///   end before the size, or the header makes no sense.
    public init(data: Data) throws(ImageMappingFailure) {
        let format = try Self.detectFormat(data)
        let reader = ByteReader(data: data, format: format)
        let (width, height): (Int, Int)
        switch format {
        case .png: (width, height) = try Self.pngSize(reader)
        case .gif: (width, height) = (try reader.uint16LE(at: 6), try reader.uint16LE(at: 8))
        case .bmp: (width, height) = try Self.bmpSize(reader)
        case .jpeg: (width, height) = try Self.jpegSize(reader)
        case .webp: (width, height) = try Self.webpSize(reader)
        case .heic: (width, height) = try Self.heicSize(reader)
        }
        guard width > 0, height > 0 else { throw .malformed(format, "it gives a size of \(width)×\(height) pixels") }
        self.init(format: format, width: width, height: height)
    }

    /// `PNG 640×480`.
    public var description: String { "\(format) \(width)×\(height)" }

    // MARK: - Detection

    private static let signatures: [(ImageFormat, [UInt8])] = [
        (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        (.jpeg, [0xFF, 0xD8, 0xFF]),
        (.gif, Array("GIF8".utf8)),
        (.webp, Array("RIFF".utf8)),
        (.bmp, Array("BM".utf8)),
    ]

    private static func detectFormat(_ data: Data) throws(ImageMappingFailure) -> ImageFormat {
        let head = Array(data.prefix(16))
        for (format, signature) in signatures {
            if head.starts(with: signature) {
                if format == .webp {
                    guard head.count >= 12 else { throw .truncated(.webp, needed: 12, available: data.count) }
                    guard head[8..<12].elementsEqual("WEBP".utf8) else { break }
                }
                return format
            }
            if !head.isEmpty, head.count < signature.count, signature.starts(with: head) {
                throw .truncated(format, needed: signature.count, available: data.count)
            }
        }
        if head.count >= 8, head[4..<8].elementsEqual("ftyp".utf8), try isHEIC(ByteReader(data: data, format: .heic)) {
            return .heic
        }
        throw .notAnImage(firstBytes: head.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " "))
    }

    // MARK: - Simple headers

    /// The IHDR chunk comes first: width and height at 16 and 20.
    private static func pngSize(_ reader: ByteReader) throws(ImageMappingFailure) -> (Int, Int) {
        guard try reader.fourCC(at: 12) == "IHDR" else { throw .malformed(.png, "the first chunk is not IHDR") }
        return (try reader.uint32BE(at: 16), try reader.uint32BE(at: 20))
    }

    /// An OS/2 core header (12 bytes) has 16-bit sizes; later ones signed
    /// 32-bit sizes, with a negative height for top-down rows.
    private static func bmpSize(_ reader: ByteReader) throws(ImageMappingFailure) -> (Int, Int) {
        let headerSize = try reader.uint32LE(at: 14)
        if headerSize == 12 { return (try reader.uint16LE(at: 18), try reader.uint16LE(at: 20)) }
        guard headerSize >= 16 else { throw .malformed(.bmp, "its info header is \(headerSize) bytes long") }
        let width = Int(Int32(truncatingIfNeeded: try reader.uint32LE(at: 18)))
        let height = Int(Int32(truncatingIfNeeded: try reader.uint32LE(at: 22)))
        return (width, abs(height))
    }

    /// The first chunk after `WEBP` says which header follows.
    private static func webpSize(_ reader: ByteReader) throws(ImageMappingFailure) -> (Int, Int) {
        switch try reader.fourCC(at: 12) {
        case "VP8 ":
            guard try reader.byte(at: 23) == 0x9D, try reader.byte(at: 24) == 0x01, try reader.byte(at: 25) == 0x2A else {
                throw .malformed(.webp, "the VP8 frame has no start code")
            }
            return (try reader.uint16LE(at: 26) & 0x3FFF, try reader.uint16LE(at: 28) & 0x3FFF)
        case "VP8L":
            guard try reader.byte(at: 20) == 0x2F else { throw .malformed(.webp, "the VP8L stream has no signature") }
            let bits = try reader.uint32LE(at: 21)
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            return (try reader.uint24LE(at: 24) + 1, try reader.uint24LE(at: 27) + 1)
        case let chunk:
            throw .malformed(.webp, "its first chunk is “\(chunk)”, not VP8, VP8L or VP8X")
        }
    }
}
