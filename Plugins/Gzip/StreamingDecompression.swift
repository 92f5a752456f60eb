import Courier
import Foundation

/// Undoes a streamed body's gzip and deflate layers as it arrives, each
/// layer within the plugin's decompressed-size limit: what ``GzipPlugin``
/// registers with `RequestContext.decodeStream(with:)`.
final class StreamingDecompression: StreamedBodyDecoder, @unchecked Sendable {
    /// One layer of the encoding, outermost first.
    private struct Layer {
        let encoding: String
        let decompressor: GzipDecompressor
    }

    // One reader calls it at a time (the protocol's contract); the lock makes
    // that safe to rely on, and is what the `@unchecked` above stands for.
    private let lock = NSLock()
    private let layers: [Layer]
    private let url: String

    /// Decodes `encodings`, in the order they must be undone, each to at most
    /// `limit` bytes; `url` names the response in errors.
    init(encodings: [String], limit: Int, url: String) {
        layers = encodings.map { encoding in
            Layer(encoding: encoding, decompressor: GzipDecompressor(format: encoding == "deflate" ? nil : .gzip, limit: limit))
        }
        self.url = url
    }

    func decode(_ chunk: Data) throws(NetworkError) -> Data {
        lock.lock()
        defer { lock.unlock() }
        var bytes = chunk
        for layer in layers {
            bytes = try decompress(bytes, in: layer)
        }
        return bytes
    }

    func finish() throws(NetworkError) -> Data {
        lock.lock()
        defer { lock.unlock() }
        var bytes = Data()
        for layer in layers {
            bytes = try decompress(bytes, in: layer)
            do {
                try layer.decompressor.finish()
            } catch {
                throw failure(error, in: layer)
            }
        }
        return bytes
    }

    private func decompress(_ bytes: Data, in layer: Layer) throws(NetworkError) -> Data {
        guard !bytes.isEmpty else { return bytes }
        do {
            return try layer.decompressor.decompress(bytes)
        } catch {
            throw failure(error, in: layer)
        }
    }

    private func failure(_ error: Gzip.Error, in layer: Layer) -> NetworkError {
        .plugin("GzipPlugin", GzipPlugin.Failure.decompressionFailed(encoding: layer.encoding, url: url, error))
    }
}
