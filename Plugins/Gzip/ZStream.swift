import CZlib
import Foundation

/// One zlib stream, deflating or inflating, with the output buffer it writes
/// into. `GzipCompressor` and `GzipDecompressor` sit on it; nothing else sees
/// zlib.
final class ZStream {
    enum Direction {
        case deflate
        case inflate
    }

    /// What one call of `run(_:flush:output:)` left zlib in.
    enum Outcome {
        /// Every input byte was consumed; more may follow.
        case needsInput
        /// The end of the compressed stream was reached; `unused` input bytes
        /// after it were not consumed.
        case streamEnd(unused: Int)
    }

    /// The output buffer of a stream: pieces of at most this many bytes.
    static let streamingBufferSize = 64 * 1024
    /// zlib counts input in `uInt` (32 bits): larger chunks are fed in slices.
    static let maximumSlice = 1 << 30

    let direction: Direction
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let bufferSize: Int
    /// The most bytes of input, or of output space, one zlib call is given:
    /// ``maximumSlice``, smaller only in tests, to reach the slicing.
    private let sliceSize: Int
    private var isOpen = false

    private init(direction: Direction, bufferSize: Int, sliceSize: Int = maximumSlice) {
        self.direction = direction
        self.bufferSize = bufferSize
        self.sliceSize = max(1, min(sliceSize, Self.maximumSlice))
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = .allocate(capacity: bufferSize)
    }

    deinit {
        if isOpen {
            switch direction {
            case .deflate: deflateEnd(stream)
            case .inflate: inflateEnd(stream)
            }
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    static func deflater(windowBits: Int32, level: Int32, bufferSize: Int = streamingBufferSize) throws(Gzip.Error) -> ZStream {
        let zstream = ZStream(direction: .deflate, bufferSize: bufferSize)
        let status = deflateInit2_(
            zstream.stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
        )
        try zstream.open(status)
        return zstream
    }

    static func inflater(windowBits: Int32, bufferSize: Int, sliceSize: Int = maximumSlice) throws(Gzip.Error) -> ZStream {
        let zstream = ZStream(direction: .inflate, bufferSize: bufferSize, sliceSize: sliceSize)
        let status = inflateInit2_(zstream.stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        try zstream.open(status)
        return zstream
    }

    private func open(_ status: Int32) throws(Gzip.Error) {
        guard status == Z_OK else { throw .zlibFailure(code: Int(status), message: message(for: status)) }
        isOpen = true
    }

    /// The most bytes a deflater's output can take for `count` bytes of
    /// input compressed in one call.
    func deflateBound(_ count: Int) -> Int {
        Int(CZlib.deflateBound(stream, uLong(count)))
    }

    /// Starts a new stream of the same kind, for a gzip file of several
    /// members.
    func reset() {
        if direction == .inflate { inflateReset(stream) } else { deflateReset(stream) }
    }

    // MARK: - Running

    /// Feeds `input` through zlib and hands every piece of output to `output`,
    /// as bytes in the stream's own buffer (valid only during the call: copy
    /// what you keep, once).
    /// - Parameter flush: `Z_NO_FLUSH` while more input follows, `Z_FINISH`
    ///   for the last call of a deflater.
    func run(
        _ input: UnsafeRawBufferPointer,
        flush: Int32,
        output: (UnsafeRawBufferPointer) throws(Gzip.Error) -> Void
    ) throws(Gzip.Error) -> Outcome {
        var offset = 0
        repeat {
            let slice = min(input.count - offset, sliceSize)
            let isLast = offset + slice == input.count
            let base = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) + offset }
            let outcome = try runSlice(base, count: slice, flush: isLast ? flush : Z_NO_FLUSH, output: output)
            if case .streamEnd(let unused) = outcome {
                return .streamEnd(unused: unused + input.count - offset - slice)
            }
            offset += slice
        } while offset < input.count
        return .needsInput
    }

    private func runSlice(
        _ input: UnsafeMutablePointer<Bytef>?,
        count: Int,
        flush: Int32,
        output: (UnsafeRawBufferPointer) throws(Gzip.Error) -> Void
    ) throws(Gzip.Error) -> Outcome {
        stream.pointee.next_in = input
        stream.pointee.avail_in = uInt(count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        while true {
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = uInt(bufferSize)
            let status = direction == .deflate ? deflate(stream, flush) : inflate(stream, flush)
            let produced = bufferSize - Int(stream.pointee.avail_out)
            if produced > 0 {
                try output(UnsafeRawBufferPointer(start: buffer, count: produced))
            }
            if try outcome(of: status).get() {
                return .streamEnd(unused: Int(stream.pointee.avail_in))
            }
            // zlib stops when it runs out of input or of output space; only
            // a full output buffer means there is more to collect.
            if stream.pointee.avail_out == 0 { continue }
            if flush == Z_FINISH && direction == .deflate { continue }
            return .needsInput
        }
    }

    /// One zlib call from `input` straight into `output`, for a one-shot call
    /// that keeps its whole output: no copy through the stream's own buffer
    /// (an inflater whose output fits in one call keeps no window either).
    /// At most 1 GiB of each is handed to zlib, which counts in 32 bits; with
    /// all of `input` in that, the call finishes the stream (`Z_FINISH`).
    /// - Returns: How many input bytes were consumed and output bytes
    ///   written; whether the output space this call was given is full (then
    ///   zlib may hold more output even with no input left); and whether the
    ///   end of the compressed stream was reached, or why zlib stopped: the
    ///   bytes written before it found the input corrupt count too (as pieces
    ///   handed over by ``run(_:flush:output:)`` do), so a caller checks its
    ///   limit first.
    func runDirectly(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) -> (consumed: Int, written: Int, filled: Bool, ended: Result<Bool, Gzip.Error>) {
        let inputCount = min(input.count, sliceSize)
        let outputCount = min(output.count, sliceSize)
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = uInt(inputCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outputCount)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
            stream.pointee.next_out = nil
            stream.pointee.avail_out = 0
        }
        // Z_FINISH when this is all the input: if the output does not fit,
        // an inflater goes on as with Z_NO_FLUSH on the next call.
        let flush = inputCount == input.count ? Z_FINISH : Z_NO_FLUSH
        let status = direction == .deflate ? deflate(stream, flush) : inflate(stream, flush)
        let consumed = inputCount - Int(stream.pointee.avail_in)
        let written = outputCount - Int(stream.pointee.avail_out)
        return (consumed, written, stream.pointee.avail_out == 0, outcome(of: status))
    }

    /// Whether a zlib call's status says the stream ended, or why it failed;
    /// `Z_BUF_ERROR` only means it ran out of input or output space.
    private func outcome(of status: Int32) -> Result<Bool, Gzip.Error> {
        switch status {
        case Z_STREAM_END: .success(true)
        case Z_OK, Z_BUF_ERROR: .success(false)
        case Z_NEED_DICT: .failure(.corrupt("the stream needs a preset dictionary, which HTTP never uses"))
        case Z_DATA_ERROR: .failure(.corrupt(message(for: status)))
        default: .failure(.zlibFailure(code: Int(status), message: message(for: status)))
        }
    }

    private func message(for status: Int32) -> String {
        if let text = stream.pointee.msg {
            return String(cString: text)
        }
        return String(cString: zError(status))
    }
}
