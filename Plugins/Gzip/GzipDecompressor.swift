import CZlib
import Foundation

/// Decompresses a stream chunk by chunk, with a limit on the total output, so
/// neither a large body nor a decompression bomb needs unbounded memory.
///
/// ```swift
/// let decompressor = GzipDecompressor(limit: 100 * 1024 * 1024)
/// for try await chunk in compressedChunks {
///     try decompressor.decompress(chunk) { piece in file.write(piece) }
/// }
/// try decompressor.finish() // throws if the stream was cut short
/// ```
///
/// A gzip stream of several members (concatenated `.gz` files) is read as
/// one. Not thread-safe: one task feeds one decompressor.
public final class GzipDecompressor {
    /// The most bytes the output may have in total.
    public let limit: Int
    /// The container, once known: given, or detected from the first bytes.
    public private(set) var format: Gzip.Format?

    private var stream: ZStream?
    private let bufferSize: Int
    private let sliceSize: Int
    /// Up to one byte held back until the format can be detected.
    private var pending = Data()
    private var consumed = 0
    private var produced = 0
    private var isAtStreamEnd = false
    private var isFinished = false

    /// Creates a decompressor.
    /// - Parameters:
    ///   - format: The container, or `nil` to detect gzip, zlib or raw
    ///     deflate from the first two bytes.
    ///   - limit: The most bytes the output may have in total.
    public convenience init(format: Gzip.Format? = nil, limit: Int = Gzip.defaultLimit) {
        self.init(format: format, limit: limit, bufferSize: ZStream.streamingBufferSize)
    }

    /// A decompressor whose zlib output buffer holds `bufferSize` bytes; 0
    /// for ``decompressWhole(_:expectedSize:)`` alone, which has zlib write
    /// into the result instead. `sliceSize` is for tests: zlib is given at
    /// most that much input or output space per call (1 GiB otherwise).
    init(format: Gzip.Format?, limit: Int, bufferSize: Int, sliceSize: Int = ZStream.maximumSlice) {
        self.format = format
        self.limit = limit
        self.bufferSize = bufferSize
        self.sliceSize = sliceSize
    }

    /// Decompresses the next chunk and returns its output.
    /// - Parameter chunk: The next compressed bytes.
    /// - Returns: The bytes decompressed so far from this chunk.
    /// - Throws: ``Gzip/Error`` for corrupt input, output past `limit`, or
    ///   use after `finish()`.
    public func decompress(_ chunk: Data) throws(Gzip.Error) -> Data {
        var output = Data()
        // Straight from zlib's buffer into the result: one copy per byte.
        try decompressRaw(chunk) { piece in output.append(piece.assumingMemoryBound(to: UInt8.self)) }
        return output
    }

    /// Decompresses `data`, the whole input, with zlib writing straight into
    /// the result: room for `expectedSize` bytes first (a hint: a wrong one
    /// costs a reallocation, never a wrong result), doubled as needed up to
    /// one byte past the limit, which shows the limit was passed. Leaves the
    /// decompressor as ``decompress(_:)`` would, for ``finish()``. Only for a
    /// new decompressor, once.
    func decompressWhole(_ data: Data, expectedSize: Int) throws(Gzip.Error) -> Data {
        guard !isFinished else { throw .alreadyFinished }
        guard format != nil || data.count >= 2 else {
            // Too short to tell the format: nothing to inflate, and finish()
            // says the stream was cut short.
            pending = data
            return Data()
        }
        try open(format ?? Gzip.Format.detect(from: data))
        guard let stream else { return Data() }
        // A negative limit allows nothing, as 0 does.
        let bound = max(0, limit)
        let ceiling = bound < Int.max ? bound + 1 : bound
        var output = try OutputBuffer(capacity: min(ceiling, max(expectedSize, Self.smallestOutput)))
        var offset = 0
        while true {
            if isAtStreamEnd {
                guard offset < data.count else { break }
                // Only gzip may carry another member after the end of one.
                guard format == .gzip else { throw .trailingData(count: data.count - offset) }
                stream.reset()
                isAtStreamEnd = false
            }
            if output.count == output.capacity {
                guard output.capacity < ceiling else { throw .sizeLimitExceeded(limit: limit) }
                let doubled = output.capacity.multipliedReportingOverflow(by: 2)
                try output.grow(to: min(ceiling, doubled.overflow ? ceiling : doubled.partialValue))
            }
            let space = output.freeSpace
            let step = data.withUnsafeBytes { input in
                stream.runDirectly(UnsafeRawBufferPointer(rebasing: input[offset...]), into: space)
            }
            offset += step.consumed
            output.count += step.written
            guard output.count <= bound else { throw .sizeLimitExceeded(limit: limit) }
            if try step.ended.get() {
                isAtStreamEnd = true
            } else if !step.filled && offset == data.count {
                // Out of input with output space to spare: the stream was cut
                // short, which finish() reports. (With the space it was given
                // full, zlib may still hold output: it is asked again.)
                break
            } else if step.consumed == 0 && step.written == 0 && !step.filled {
                throw .corrupt("zlib made no progress")
            }
        }
        consumed = offset
        produced = output.count
        return output.data()
    }

    /// The first room a whole-input call reserves when the input announces
    /// no size.
    private static let smallestOutput = 4 * 1024

    /// Decompresses the next chunk, handing the output over in pieces of at
    /// most 64 KiB, so it never needs to be in memory whole.
    /// - Parameters:
    ///   - chunk: The next compressed bytes.
    ///   - output: Receives each piece of decompressed bytes, in order.
    /// - Throws: ``Gzip/Error`` for corrupt input, output past `limit`, or
    ///   use after `finish()`.
    public func decompress(_ chunk: Data, into output: (Data) -> Void) throws(Gzip.Error) {
        try decompressRaw(chunk) { piece in output(Data(piece)) }
    }

    /// Decompresses the next chunk, handing each piece over as bytes valid
    /// only during the call.
    private func decompressRaw(_ chunk: Data, into output: (UnsafeRawBufferPointer) -> Void) throws(Gzip.Error) {
        guard !isFinished else { throw .alreadyFinished }
        guard !chunk.isEmpty else { return }
        var input = chunk
        if stream == nil {
            pending.append(chunk)
            if format == nil && pending.count < 2 { return }
            try open(format ?? Gzip.Format.detect(from: pending))
            input = pending
            pending = Data()
        }
        try feed(input, output: output)
    }

    /// Checks that the compressed stream ended where the input did.
    /// - Throws: ``Gzip/Error/truncated(consumed:)`` if the input stopped
    ///   before the end of the stream.
    public func finish() throws(Gzip.Error) {
        guard !isFinished else { throw .alreadyFinished }
        isFinished = true
        guard isAtStreamEnd else { throw .truncated(consumed: consumed + pending.count) }
    }

    // MARK: - Feeding zlib

    private func open(_ format: Gzip.Format) throws(Gzip.Error) {
        self.format = format
        stream = try ZStream.inflater(windowBits: format.windowBits, bufferSize: bufferSize, sliceSize: sliceSize)
    }

    private func feed(_ input: Data, output: (UnsafeRawBufferPointer) -> Void) throws(Gzip.Error) {
        guard let stream else { return }
        let limit = limit
        var remaining = input
        while !remaining.isEmpty {
            if isAtStreamEnd {
                // Only gzip may carry another member after the end of one.
                guard format == .gzip else { throw .trailingData(count: remaining.count) }
                stream.reset()
                isAtStreamEnd = false
            }
            var produced = self.produced
            let result = remaining.withUnsafeBytes { bytes in
                Result { () throws(Gzip.Error) -> ZStream.Outcome in
                    try stream.run(bytes, flush: Z_NO_FLUSH) { piece throws(Gzip.Error) in
                        produced += piece.count
                        guard produced <= limit else { throw .sizeLimitExceeded(limit: limit) }
                        output(piece)
                    }
                }
            }
            self.produced = produced
            switch try result.get() {
            case .needsInput:
                consumed += remaining.count
                remaining = Data()
            case .streamEnd(let unused):
                consumed += remaining.count - unused
                isAtStreamEnd = true
                remaining = remaining.suffix(unused)
            }
        }
    }
}

@available(*, unavailable)
extension GzipDecompressor: Sendable {}
