import Courier
import CourierGzip
import Foundation
import NIOCore
import NIOHTTP1

/// Undoes a response's `gzip` or `deflate` `Content-Encoding` as its parts
/// arrive: what `TransferConfiguration.decodesContent` asks of the transport.
///
/// A part is decoded a slice of ``sliceSize`` compressed bytes at a time, and
/// the exchange counts each slice's output against the transfer's limit
/// before it keeps it, so a decompression bomb (1 GB of zeros in 1 MB) takes
/// no more memory than the limit and one slice's output (zlib inflates at
/// most about 1,032 bytes from one).
///
/// AsyncHTTPClient calls the exchange one part at a time, and a streamed
/// part's slices are decoded one after another as its reader takes them, so
/// the decompressor is never used by two threads at once; the lock makes that
/// safe to rely on.
final class ContentDecoder: @unchecked Sendable {
    /// Compressed bytes decoded in one step: at most about 4 MiB of output.
    static let sliceSize = 4096

    /// The encoding undone, as the head named it.
    let encoding: String
    private let url: URL
    private let lock = NSLock()
    private let decompressor: GzipDecompressor

    private init(encoding: String, url: URL) {
        self.encoding = encoding
        self.url = url
        // The transfer stage's limits bound the output; the decompressor's
        // own limit is only there to never be the first.
        decompressor = GzipDecompressor(format: encoding == "deflate" ? nil : .gzip, limit: .max)
    }

    /// The decoder for a response whose head names one `gzip`, `x-gzip` or
    /// `deflate` encoding, or `nil` when there is nothing to undo: no body
    /// (HEAD, 1xx, 204, 304), no encoding, or one this transport leaves as it
    /// is (another algorithm, or layers of them, which keep their
    /// `Content-Encoding` for a plugin to undo).
    static func make(for head: HTTPResponseHead, method: () -> String, url: URL) -> ContentDecoder? {
        // The header first: most responses have none, and reading the method
        // goes through the request's storage.
        let status = head.status.code
        guard let header = head.headers.first(name: "Content-Encoding"), status >= 200, status != 204, status != 304,
              method() != "HEAD" else { return nil }
        guard let encodings = GzipPlugin.decodableEncodings(header), encodings.count == 1, let encoding = encodings.first else {
            return nil
        }
        return ContentDecoder(encoding: encoding, url: url)
    }

    /// The decoded bytes of the next slice of compressed bytes.
    /// - Throws: A `URLError` (`cannotDecodeContentData`) that says why.
    func decode(_ slice: ByteBuffer) throws -> Data {
        let input = slice.withUnsafeReadableBytes { Data($0) }
        lock.lock()
        defer { lock.unlock() }
        do {
            return try decompressor.decompress(input)
        } catch {
            throw failure(error)
        }
    }

    /// Checks that the body ended where its encoding did.
    /// - Throws: A `URLError` (`cannotDecodeContentData`) when it was cut short.
    func finish() throws {
        lock.lock()
        defer { lock.unlock() }
        do {
            try decompressor.finish()
        } catch {
            throw failure(error)
        }
    }

    private func failure(_ error: Gzip.Error) -> URLError {
        URLError(.cannotDecodeContentData, userInfo: [
            NSLocalizedDescriptionKey: "the \(encoding)-encoded body from \(URLRedactor.summary(url)) could not be decoded: \(error)",
            NSUnderlyingErrorKey: error,
        ])
    }
}
