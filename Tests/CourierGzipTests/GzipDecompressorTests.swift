import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// Streaming: chunks in, chunks out, memory bounded.
struct GzipDecompressorTests {
    @Test func oneByteChunksDecodeLikeOneShot() throws {
        let original = GzipTests.text
        let packed = try Gzip.compress(original, format: .zlib)
        let decompressor = GzipDecompressor()
        var output = Data()
        for byte in packed {
            output.append(try decompressor.decompress(Data([byte])))
        }
        try decompressor.finish()
        #expect(decompressor.format == .zlib)
        #expect(output == original)
    }

    @Test func finishBeforeTheEndIsTruncation() throws {
        let packed = try Gzip.compress(GzipTests.text)
        let decompressor = GzipDecompressor()
        _ = try decompressor.decompress(packed.dropLast(8))
        #expect(throws: Gzip.Error.truncated(consumed: packed.count - 8)) { try decompressor.finish() }
        #expect(throws: Gzip.Error.alreadyFinished) { try decompressor.decompress(packed) }
    }

    @Test func compressorStreamsToo() throws {
        let compressor = try GzipCompressor(format: .rawDeflate, level: .fastest)
        var packed = Data()
        for _ in 0..<50 {
            packed.append(try compressor.compress(GzipTests.text))
        }
        packed.append(try compressor.finish())
        #expect(throws: Gzip.Error.alreadyFinished) { try compressor.finish() }
        let unpacked = try Gzip.decompress(packed, format: .rawDeflate)
        #expect(unpacked.count == GzipTests.text.count * 50)
        #expect(unpacked.prefix(GzipTests.text.count) == GzipTests.text)
    }

    /// 100 MB through a compressor and a decompressor, 1 MiB at a time, never
    /// holding more than a chunk, measured in a process of its own: the peak
    /// resident memory grows by a few chunks and zlib's windows, not by the
    /// 100 MB that went through.
    @Test func hundredMegabytesRoundTripInChunks() async throws {
        try await MeasuredAlone.run(suite: "GzipDecompressorTests", case: "round trip") {
            let chunkSize = 1 << 20
            let chunkCount = 100
            let block = Self.block(size: chunkSize)
            func chunk(_ index: Int) -> Data {
                var data = block
                withUnsafeBytes(of: UInt64(index).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
                return data
            }

            let measured = try await PeakMemory.measure { () throws -> (verified: Int, compressed: Int, mismatch: Int?) in
                let compressor = try GzipCompressor(level: .fastest)
                let decompressor = GzipDecompressor(limit: chunkSize * chunkCount)
                var verified = 0
                var compressedTotal = 0
                var mismatch: Int?
                // The output arrives in pieces smaller than a chunk: build each
                // expected chunk once, not once per piece.
                var expectedChunk: (index: Int, data: Data) = (0, chunk(0))
                let check = { (piece: Data) in
                    var offset = 0
                    while offset < piece.count {
                        let position = verified + offset
                        if expectedChunk.index != position / chunkSize {
                            expectedChunk = (position / chunkSize, chunk(position / chunkSize))
                        }
                        let expected = expectedChunk.data
                        let start = position % chunkSize
                        let length = min(piece.count - offset, chunkSize - start)
                        let slice = piece[piece.startIndex + offset ..< piece.startIndex + offset + length]
                        if mismatch == nil && expected[start ..< start + length] != slice { mismatch = position }
                        offset += length
                    }
                    verified += piece.count
                }
                for index in 0..<chunkCount {
                    let packed = try compressor.compress(chunk(index))
                    compressedTotal += packed.count
                    try decompressor.decompress(packed, into: check)
                }
                let tail = try compressor.finish()
                compressedTotal += tail.count
                try decompressor.decompress(tail, into: check)
                try decompressor.finish()
                return (verified, compressedTotal, mismatch)
            }

            MeasuredAlone.report("gzip 100 MiB round trip: \(measured.result.compressed) compressed bytes, the resident memory grew by \(measured.growth) MiB")
            #expect(measured.result.mismatch == nil)
            #expect(measured.result.verified == chunkSize * chunkCount)
            #expect(measured.growth < 32, "the resident memory grew by \(measured.growth) MiB")
        }
    }

    /// A 1 MiB block of JSON-like text with seeded numbers: compressible, but
    /// not trivially.
    private static func block(size: Int) -> Data {
        var generator = SeededGenerator(seed: 42)
        var text = ""
        while text.utf8.count < size {
            text += #"{"id":\#(generator.next() % 100_000),"score":\#(generator.next() % 1000),"tag":"t\#(generator.next() % 97)"},"#
        }
        return Data(text.utf8.prefix(size))
    }
}
