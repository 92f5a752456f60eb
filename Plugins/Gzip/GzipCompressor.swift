import CZlib
import Foundation

/// Compresses a stream chunk by chunk, so a large body never needs to be in
/// memory whole.
///
/// ```swift
/// let compressor = try GzipCompressor()
/// for chunk in chunks {
///     try output.write(contentsOf: compressor.compress(chunk))
/// }
/// try output.write(contentsOf: compressor.finish())
/// ```
///
/// Not thread-safe: one task feeds one compressor.
public final class GzipCompressor {
    /// The container being written.
    public let format: Gzip.Format
    private let stream: ZStream
    private var isFinished = false

    /// Creates a compressor.
    /// - Parameters:
    ///   - format: The container; gzip by default.
    ///   - level: How hard to work.
    /// - Throws: ``Gzip/Error/zlibFailure(code:message:)`` if zlib cannot
    ///   start.
    public convenience init(format: Gzip.Format = .gzip, level: Gzip.Level = .default) throws(Gzip.Error) {
        try self.init(format: format, level: level, bufferSize: ZStream.streamingBufferSize)
    }

    /// A compressor whose zlib output buffer holds `bufferSize` bytes; 0 for
    /// ``compressWhole(_:)`` alone, which has zlib write into the result.
    init(format: Gzip.Format, level: Gzip.Level, bufferSize: Int) throws(Gzip.Error) {
        self.format = format
        stream = try ZStream.deflater(windowBits: format.windowBits, level: level.rawValue, bufferSize: bufferSize)
    }

    /// The most input ``compressWhole(_:)`` takes: zlib's bound on its output
    /// must fit in one call too.
    static let largestWhole = ZStream.maximumSlice / 2

    /// Compresses `data`, the whole input, in one zlib call that writes
    /// straight into the result (room for zlib's bound on the output, the
    /// rest given back), and ends the stream. For at most
    /// ``largestWhole`` bytes, on a new compressor, once.
    func compressWhole(_ data: Data) throws(Gzip.Error) -> Data {
        guard !isFinished else { throw .alreadyFinished }
        isFinished = true
        var output = try OutputBuffer(capacity: stream.deflateBound(data.count))
        let space = output.freeSpace
        let step = data.withUnsafeBytes { input in stream.runDirectly(input, into: space) }
        output.count = step.written
        guard try step.ended.get() else {
            throw .zlibFailure(code: Int(Z_BUF_ERROR), message: "the output outgrew zlib's own bound")
        }
        return output.data()
    }

    /// Compresses the next chunk.
    /// - Parameter chunk: The next bytes of the input.
    /// - Returns: Compressed bytes ready so far; often empty, as zlib buffers.
    /// - Throws: ``Gzip/Error/alreadyFinished`` after `finish()`.
    public func compress(_ chunk: Data) throws(Gzip.Error) -> Data {
        try run(chunk, flush: Z_NO_FLUSH)
    }

    /// Ends the stream.
    /// - Returns: The last compressed bytes, with the format's trailer.
    /// - Throws: ``Gzip/Error/alreadyFinished`` when called twice.
    public func finish() throws(Gzip.Error) -> Data {
        let output = try run(Data(), flush: Z_FINISH)
        isFinished = true
        return output
    }

    private func run(_ chunk: Data, flush: Int32) throws(Gzip.Error) -> Data {
        guard !isFinished else { throw .alreadyFinished }
        var output = Data()
        let result = chunk.withUnsafeBytes { input in
            Result { () throws(Gzip.Error) in
                _ = try stream.run(input, flush: flush) { piece throws(Gzip.Error) in
                    output.append(piece.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        try result.get()
        return output
    }
}

@available(*, unavailable)
extension GzipCompressor: Sendable {}
