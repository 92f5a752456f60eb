import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// `Gzip.decompress` and `Gzip.compress` have zlib write straight into their
/// result; `GzipDecompressor` and `GzipCompressor` stream through a buffer of
/// their own. Both must give the same bytes, or the same error, for any input.
struct GzipOneShotTests {
    /// What one call gave: the bytes, or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case bytes(Data)
        case failure(Gzip.Error)

        var description: String {
            switch self {
            case .bytes(let data): "\(data.count) bytes"
            case .failure(let error): "\(error)"
            }
        }
    }

    static func oneShot(_ input: Data, format: Gzip.Format?, limit: Int) -> Outcome {
        do {
            return .bytes(try Gzip.decompress(input, format: format, limit: limit))
        } catch {
            return .failure(error)
        }
    }

    static func streamed(_ input: Data, format: Gzip.Format?, limit: Int) -> Outcome {
        streamed(input, through: GzipDecompressor(format: format, limit: limit))
    }

    /// `input` fed whole to `decompressor`, then finished.
    static func streamed(_ input: Data, through decompressor: GzipDecompressor) -> Outcome {
        do {
            let output = try decompressor.decompress(input)
            try decompressor.finish()
            return .bytes(output)
        } catch {
            return .failure(error)
        }
    }

    /// Text that compresses well and random bytes that do not, in one body.
    static func body(count: Int, using generator: inout SeededGenerator) -> Data {
        let text = Data(String(repeating: #"{"id":7,"tags":["a","b"]},"#, count: count / 26 + 1).utf8.prefix(count / 2))
        return text + LoopbackServer.bytes(count: count - text.count, seed: generator.next())
    }

    /// One seeded input: a valid stream, then damaged in one of several ways.
    static func input(using generator: inout SeededGenerator) throws -> (input: Data, format: Gzip.Format?, limit: Int, damage: String) {
        let format = [Gzip.Format.gzip, .zlib, .rawDeflate].randomElement(using: &generator) ?? .gzip
        let plain = body(count: Int.random(in: 0...300_000, using: &generator), using: &generator)
        var packed = try Gzip.compress(plain, format: format, level: Gzip.Level(Int.random(in: 0...9, using: &generator)))
        var damage = "none"
        switch Int.random(in: 0..<7, using: &generator) {
        case 0:
            damage = "cut after \(packed.count / 3) bytes"
            packed = packed.prefix(packed.count / 3)
        case 1 where packed.count > 20:
            let index = Int.random(in: 2..<packed.count, using: &generator)
            damage = "byte \(index) flipped"
            packed[index] ^= UInt8.random(in: 1...255, using: &generator)
        case 2:
            damage = "a second member"
            packed += try Gzip.compress(body(count: Int.random(in: 0...50_000, using: &generator), using: &generator), format: format)
        case 3:
            damage = "junk after the stream"
            packed += Data("junk".utf8)
        case 4 where format == .gzip && packed.count >= 18:
            // The trailer's size is only a hint for the room reserved: a lie
            // either way must not change the result.
            let claimed = UInt32.random(in: 0...UInt32.max, using: &generator)
            damage = "trailer claims \(claimed) bytes"
            for shift in 0..<4 { packed[packed.endIndex - 4 + shift] = UInt8(truncatingIfNeeded: claimed >> (8 * shift)) }
        default:
            break
        }
        let limit = [Gzip.defaultLimit, plain.count, max(0, plain.count - 1), plain.count / 2, 0, -1].randomElement(using: &generator)
            ?? Gzip.defaultLimit
        let named = Bool.random(using: &generator) ? format : nil
        return (packed, named, limit, damage)
    }

    @Test(arguments: [UInt64(3), 41, 2026])
    func theOneShotCallAgreesWithTheStreamingDecompressor(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var failures = 0
        for round in 0..<60 {
            let (input, format, limit, damage) = try Self.input(using: &generator)
            let whole = Self.oneShot(input, format: format, limit: limit)
            let streamed = Self.streamed(input, format: format, limit: limit)
            if case .failure = whole { failures += 1 }
            #expect(whole == streamed,
                    "seed \(seed) round \(round): \(input.count) bytes, \(format?.description ?? "detected"), limit \(limit), damage: \(damage)")
        }
        #expect(failures > 5, "the damaged inputs fail on both paths (\(failures) of 60)")
    }

    @Test(arguments: [UInt64(5), 77])
    func theOneShotCompressorWritesWhatTheStreamingOneDoes(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for round in 0..<30 {
            let format = [Gzip.Format.gzip, .zlib, .rawDeflate].randomElement(using: &generator) ?? .gzip
            let level = Gzip.Level(Int.random(in: 0...9, using: &generator))
            // Random bytes grow a little under deflate: the output must still
            // fit the room zlib's bound gives.
            let plain = Bool.random(using: &generator)
                ? LoopbackServer.bytes(count: Int.random(in: 0...300_000, using: &generator), seed: generator.next())
                : Self.body(count: Int.random(in: 0...300_000, using: &generator), using: &generator)
            let whole = try Gzip.compress(plain, format: format, level: level)
            let compressor = try GzipCompressor(format: format, level: level)
            let streamed = try compressor.compress(plain) + compressor.finish()
            // Level 0 stores the input in blocks sized by the room zlib has
            // for output, so there only the content must be the same.
            if level.rawValue != 0 {
                #expect(whole == streamed, "seed \(seed) round \(round): \(plain.count) bytes, \(format), level \(level.rawValue)")
            }
            #expect(try Gzip.decompress(whole, format: format, limit: plain.count) == plain)
            #expect(try Gzip.decompress(streamed, format: format, limit: plain.count) == plain)
        }
    }

    @Test func theLimitIsExactWhenTheTrailerUndercountsTheOutput() throws {
        // Two members: the trailer at the end announces only the second one,
        // so the room reserved for it must grow for the whole output.
        let first = Data(String(repeating: "0123456789", count: 10_000).utf8)
        let second = Data("and a short second member".utf8)
        let packed = try Gzip.compress(first) + Gzip.compress(second)
        let total = first.count + second.count
        #expect(try Gzip.decompress(packed, limit: total) == first + second, "exactly at the limit")
        #expect(throws: Gzip.Error.sizeLimitExceeded(limit: total - 1)) {
            try Gzip.decompress(packed, limit: total - 1)
        }
    }

    @Test func aTrailerThatLiesAboutTheSizeIsCorrupt() throws {
        let plain = Data(String(repeating: "0123456789", count: 1_000).utf8)
        var packed = try Gzip.compress(plain)
        for shift in 0..<4 { packed[packed.endIndex - 4 + shift] = UInt8(truncatingIfNeeded: 10 >> (8 * shift)) }
        let error = try #require(throws: Gzip.Error.self) { try Gzip.decompress(packed) }
        #expect(error == .corrupt("incorrect length check"))
    }

    @Test func inputTooShortToNameItsFormatIsTruncated() {
        #expect(throws: Gzip.Error.truncated(consumed: 0)) { try Gzip.decompress(Data()) }
        #expect(throws: Gzip.Error.truncated(consumed: 1)) { try Gzip.decompress(Data([0x1F])) }
        #expect(throws: Gzip.Error.truncated(consumed: 0)) { try Gzip.decompress(Data(), format: .zlib) }
    }
}
