import Courier
import Foundation

/// Undoes a body's gzip and deflate layers as it arrives, each layer within a
/// limit on its output: the one streaming decoder of Courier's content
/// encodings. ``GzipPlugin`` registers it for a streamed call with
/// `RequestContext.decodeStream(with:)`; `AsyncHTTPClientTransport` decodes
/// the bodies it is asked to decode (`TransferConfiguration.decodesContent`)
/// with it, a slice at a time, so each slice's output is counted before the
/// next is decoded.
package final class StreamingDecompression: StreamedBodyDecoder, @unchecked Sendable {
    /// One layer of the encoding, outermost first.
    private struct Layer {
        let encoding: String
        let decompressor: GzipDecompressor
    }

    // One reader calls it at a time (the protocol's contract); the lock makes
    // that safe to rely on, and is what the `@unchecked` above stands for.
    private let lock = NSLock()
    private let layers: [Layer]
    private let failure: @Sendable (_ encoding: String, Gzip.Error) -> NetworkError

    /// Decodes `encodings`, in the order they must be undone, each to at most
    /// `limit` bytes; `failure` names what went wrong with one of them, as
    /// its user reports it.
    package init(encodings: [String], limit: Int, failure: @escaping @Sendable (_ encoding: String, Gzip.Error) -> NetworkError) {
        layers = encodings.map { encoding in
            Layer(encoding: encoding, decompressor: GzipDecompressor(format: encoding == "deflate" ? nil : .gzip, limit: limit))
        }
        self.failure = failure
    }

    package func decode(_ chunk: Data) throws(NetworkError) -> Data {
        lock.lock()
        defer { lock.unlock() }
        var bytes = chunk
        for layer in layers {
            bytes = try decompress(bytes, in: layer)
        }
        return bytes
    }

    package func finish() throws(NetworkError) -> Data {
        lock.lock()
        defer { lock.unlock() }
        var bytes = Data()
        for layer in layers {
            bytes = try decompress(bytes, in: layer)
            do {
                try layer.decompressor.finish()
            } catch {
                throw failure(layer.encoding, error)
            }
        }
        return bytes
    }

    private func decompress(_ bytes: Data, in layer: Layer) throws(NetworkError) -> Data {
        guard !bytes.isEmpty else { return bytes }
        do {
            return try layer.decompressor.decompress(bytes)
        } catch {
            throw failure(layer.encoding, error)
        }
    }
}
