@testable import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// zlib counts in 32 bits, so no call is given more than 1 GiB of input or of
/// output space; these tests shrink that slice to 4 KiB to reach the slicing
/// with small bodies, and hold both paths to the unsliced streaming result.
struct GzipSlicingTests {
    typealias Outcome = GzipOneShotTests.Outcome

    static let slice = 4_096

    /// The one-shot path with slices of `slice` bytes and room for `hint`
    /// bytes first.
    static func slicedOneShot(_ input: Data, format: Gzip.Format?, limit: Int, hint: Int, slice: Int = slice) -> Outcome {
        let decompressor = GzipDecompressor(format: format, limit: limit, bufferSize: 0, sliceSize: slice)
        do {
            let output = try decompressor.decompressWhole(input, expectedSize: hint)
            try decompressor.finish()
            return .bytes(output)
        } catch {
            return .failure(error)
        }
    }

    /// The streaming path with 4 KiB input slices.
    static func slicedStream(_ input: Data, format: Gzip.Format?, limit: Int) -> Outcome {
        GzipOneShotTests.streamed(input, through: GzipDecompressor(format: format, limit: limit, bufferSize: 1_024, sliceSize: slice))
    }

    @Test(arguments: [UInt64(11), 2026])
    func slicedCallsAgreeWithTheUnslicedStream(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for round in 0..<40 {
            let (input, format, limit, damage) = try GzipOneShotTests.input(using: &generator)
            let expected = GzipOneShotTests.streamed(input, format: format, limit: limit)
            // Room far past one slice, so a call can fill its slice with room
            // left in the buffer; and room for a single byte, so it grows.
            for hint in [1 << 20, 1] {
                #expect(Self.slicedOneShot(input, format: format, limit: limit, hint: hint) == expected,
                        "seed \(seed) round \(round): \(input.count) bytes, \(format?.description ?? "detected"), limit \(limit), hint \(hint), damage: \(damage)")
            }
            #expect(Self.slicedStream(input, format: format, limit: limit) == expected,
                    "seed \(seed) round \(round), streamed in slices, damage: \(damage)")
        }
    }

    /// A raw deflate stream has no trailer after its data, so its last input
    /// byte can be read while zlib still holds output; with the call's slice
    /// full, that is more output to collect, not a stream cut short. Where the
    /// last codes fall in the last bytes decides it, so many short streams
    /// are tried with slices of a few bytes.
    @Test func aFullSliceAtTheEndOfTheInputIsNotTruncation() throws {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<400 {
            let plain = Data((0..<Int.random(in: 1...600, using: &generator)).map { _ in
                UInt8.random(in: 0...3, using: &generator) * 40
            })
            let packed = try Gzip.compress(plain, format: .rawDeflate, level: Gzip.Level(Int.random(in: 1...9, using: &generator)))
            let slice = Int.random(in: 1...16, using: &generator)
            #expect(Self.slicedOneShot(packed, format: .rawDeflate, limit: plain.count, hint: 1 << 12, slice: slice) == .bytes(plain),
                    "\(plain.count) bytes in slices of \(slice)")
        }
    }

    @Test func theLargestLimitIsNoLimit() throws {
        let plain = Data(String(repeating: "0123456789", count: 10_000).utf8)
        let packed = try Gzip.compress(plain)
        #expect(try Gzip.decompress(packed, limit: .max) == plain)
        #expect(Self.slicedOneShot(packed, format: nil, limit: .max, hint: 0) == .bytes(plain))
    }
}
