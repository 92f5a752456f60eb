import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// The one-shot `Gzip` API on real zlib.
struct GzipTests {
    static let text = Data(String(repeating: #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"},"#, count: 400).utf8)

    @Test(arguments: [Gzip.Format.gzip, .zlib, .rawDeflate])
    func roundTripsInEveryFormat(format: Gzip.Format) throws {
        let packed = try Gzip.compress(Self.text, format: format)
        #expect(packed.count < Self.text.count / 10)
        #expect(Gzip.Format.detect(from: packed) == format)
        #expect(try Gzip.decompress(packed, format: format) == Self.text)
        #expect(try Gzip.decompress(packed) == Self.text, "detected from the first bytes")
    }

    @Test(arguments: [UInt64(1), 7, 2026])
    func randomDataRoundTrips(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<20 {
            // Past the room a one-shot call reserves first, so it grows.
            let count = Int.random(in: 0...700_000, using: &generator)
            let data = LoopbackServer.bytes(count: count, seed: generator.next())
            let level = Gzip.Level(Int.random(in: 0...9, using: &generator))
            let packed = try Gzip.compress(data, level: level)
            #expect(Gzip.isGzipped(packed))
            #expect(try Gzip.decompress(packed) == data, "seed \(seed), \(count) bytes, level \(level.rawValue)")
        }
    }

    @Test func emptyInputRoundTrips() throws {
        let packed = try Gzip.compress(Data())
        #expect(!packed.isEmpty, "a gzip stream has a header and trailer even when empty")
        #expect(try Gzip.decompress(packed) == Data())
    }

    @Test func concatenatedGzipMembersReadAsOne() throws {
        let first = Data("first half, ".utf8)
        let second = Data("second half".utf8)
        let packed = try Gzip.compress(first) + Gzip.compress(second)
        #expect(try Gzip.decompress(packed) == first + second)
    }

    // MARK: - Bad input

    @Test func aBombOfAboutOneKilobyteIsStoppedAtTheLimit() throws {
        let bomb = try Gzip.compress(Data(count: 1_000_000), level: .best)
        #expect(bomb.count < 1_200, "about 1 KB on the wire (\(bomb.count) bytes)")
        let error = try #require(throws: Gzip.Error.self) {
            try Gzip.decompress(bomb, limit: 100_000)
        }
        #expect(error == .sizeLimitExceeded(limit: 100_000))
        #expect(error.description.contains("decompression bomb"))
    }

    @Test func corruptBytesAreAClearError() throws {
        let error = try #require(throws: Gzip.Error.self) {
            try Gzip.decompress(Data("this is not compressed at all".utf8), format: .gzip)
        }
        guard case .corrupt(let reason) = error else {
            Issue.record("expected .corrupt, got \(error)")
            return
        }
        #expect(reason.contains("header"), "zlib's reason: \(reason)")
        #expect(error.description.contains("corrupt"))
    }

    @Test func damagedBodyIsCorrupt() throws {
        var packed = try Gzip.compress(Self.text)
        for index in stride(from: 20, to: packed.count - 8, by: 7) {
            packed[index] ^= 0x5A
        }
        #expect(throws: Gzip.Error.self) { try Gzip.decompress(packed) }
    }

    @Test func truncatedInputSaysSo() throws {
        let packed = try Gzip.compress(Self.text)
        let error = try #require(throws: Gzip.Error.self) {
            try Gzip.decompress(packed.prefix(packed.count / 2))
        }
        #expect(error == .truncated(consumed: packed.count / 2))
        #expect(error.description.contains("ends early"))
    }

    @Test func bytesAfterAZlibStreamAreRefused() throws {
        let packed = try Gzip.compress(Self.text, format: .zlib) + Data("junk".utf8)
        #expect(throws: Gzip.Error.trailingData(count: 4)) { try Gzip.decompress(packed) }
    }
}
