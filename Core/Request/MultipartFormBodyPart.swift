import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One part of a `multipart/form-data` body.
///
/// ```swift
/// .uploadMultipart([
///     MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "name"),
///     MultipartFormBodyPart(provider: .file(avatarURL), name: "avatar", fileName: "ada.png", mimeType: "image/png"),
/// ])
/// ```
public struct MultipartFormBodyPart: Sendable {
    /// Where a part's bytes come from.
    public enum Provider: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// The contents of a file, read in chunks while the body is written.
        case file(URL)
        /// A stream of exactly `length` bytes. The closure is called once, when
        /// the body is written; the bytes are then kept (in memory or in a
        /// temporary file), so a retry never needs the stream again.
        case stream(@Sendable () throws -> InputStream, length: UInt64)
    }

    /// Where the part's bytes come from: data, a file or a stream.
    public let provider: Provider
    /// The form field name.
    public let name: String
    /// The file name sent in `Content-Disposition`; a file part defaults to the
    /// file's own name.
    public let fileName: String?
    /// The part's `Content-Type`; defaults to one inferred from the file name,
    /// or none for plain fields.
    public let mimeType: String?

    /// Creates a part.
    /// - Parameters:
    ///   - provider: Where the part's bytes come from.
    ///   - name: The form field name.
    ///   - fileName: The file name sent in `Content-Disposition`; a file part
    ///     defaults to the file's own name.
    ///   - mimeType: The part's `Content-Type`; inferred from the file name
    ///     when `nil`.
    public init(provider: Provider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        if case .file(let url) = provider, fileName == nil {
            self.fileName = url.lastPathComponent
        } else {
            self.fileName = fileName
        }
        self.mimeType = mimeType ?? self.fileName.flatMap(MIMEType.forFileName)
    }
}

/// MIME types for the file extensions a form upload most often carries.
enum MIMEType {
    static func forFileName(_ name: String) -> String? {
        let ext = (name as NSString).pathExtension.lowercased()
        guard !ext.isEmpty else { return nil }
        return known[ext] ?? "application/octet-stream"
    }

    private static let known: [String: String] = [
        "json": "application/json", "xml": "application/xml", "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip", "txt": "text/plain", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "bmp": "image/bmp", "svg": "image/svg+xml",
        "mp3": "audio/mpeg", "wav": "audio/wav", "mp4": "video/mp4", "mov": "video/quicktime",
        "yaml": "application/yaml", "yml": "application/yaml",
    ]
}
