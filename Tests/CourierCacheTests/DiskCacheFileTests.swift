import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// What a hit checks in a file it reads, and which files a store counts as
/// its own: the file name is the key's digest, the file names that digest
/// again, its strings are UTF-8, and a file named otherwise is not the
/// store's to count, trim or remove.
@Suite struct DiskCacheFileTests {
    /// Every length around the 64-byte blocks and the 56-byte padding limit,
    /// in ASCII and in multi-byte characters, against the test suite's own
    /// HMAC-SHA256. Keys whose bytes differ from block to block catch a hash
    /// that reads one block twice (a key of one repeated byte cannot).
    @Test func fileNamesAreTheHMACOfKeysOfEveryLengthAroundABlock() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            var keys = (0...130).map { String(repeating: "k", count: $0) }
            keys += (0...200).map { count in
                let bytes: [UInt8] = (0..<count).map { (index: Int) -> UInt8 in UInt8(0x21 + (index * 7 + index / 64) % 94) }
                return String(decoding: bytes, as: UTF8.self)
            }
            keys += [String(repeating: "é", count: 28), String(repeating: "€", count: 19), String(repeating: "x", count: 1_000)]
            for key in keys {
                let expected = try directory.cacheFileName(ofKey: key)
                #expect(cache.fileURL(forKey: key).lastPathComponent == expected, "key of \(key.utf8.count) bytes")
            }
        }
    }

    /// A file that names another key's digest (what a collision, or a file
    /// copied by hand, would look like) is neither served nor deleted.
    @Test func aFileThatNamesAnotherKeyIsNotServedAndNotRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            cache.store(makeEntry("a", body: Data("for a".utf8)), forKey: "a")
            let fileOfB = cache.fileURL(forKey: "b")
            try FileManager.default.copyItem(at: cache.fileURL(forKey: "a"), to: fileOfB)

            #expect(cache.entry(forKey: "b") == nil)
            #expect(FileManager.default.fileExists(atPath: fileOfB.path))
            #expect(cache.entry(forKey: "a")?.body == Data("for a".utf8))
        }
    }

    /// A string in the file that is not UTF-8, under a checksum that matches:
    /// a miss, and the file goes. One lone byte 0xFF, and invalid UTF-8 that
    /// repairs to a string of the same length (a cut four-byte sequence and a
    /// letter: F0 9F 98 41 becomes EF BF BD 41), which only comparing the
    /// bytes, not the lengths, refuses.
    @Test(arguments: [[0xFF], [0xF0, 0x9F, 0x98, 0x41]] as [[UInt8]])
    func aHeaderThatIsNotUTF8IsAMissAndIsRemoved(damage: [UInt8]) async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            var entry = makeEntry("key", body: Data("body".utf8))
            entry.headers["X-Marker"] = "MARKER-MARKER"
            cache.store(entry, forKey: "key")
            let file = cache.fileURL(forKey: "key")
            var bytes = try Data(contentsOf: file)
            let marker = try #require(bytes.range(of: Data("MARKER-MARKER".utf8)))
            bytes.replaceSubrange(marker.lowerBound..<marker.lowerBound + damage.count, with: damage)
            bytes = Self.withChecksumRewritten(bytes)
            try bytes.write(to: file)

            #expect(cache.entry(forKey: "key") == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    /// The same file with the checksum rewritten and nothing else changed is
    /// served: the test above fails on the UTF-8, not on the checksum.
    @Test func aFileWithItsChecksumRewrittenIsStillServed() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            let entry = makeEntry("key", body: Data("body".utf8))
            cache.store(entry, forKey: "key")
            let file = cache.fileURL(forKey: "key")
            let bytes = try Data(contentsOf: file)
            #expect(Self.withChecksumRewritten(bytes) == bytes)
            #expect(cache.entry(forKey: "key") == entry)
        }
    }

    /// A store opened on a directory counts the files there, oldest
    /// modification first, and trims to its limit at once.
    @Test func aStoreOpenedOnOldFilesTrimsTheOldestFirst() async throws {
        try await withTemporaryDirectory { directory in
            let body = Data(repeating: 7, count: 2_000)
            let writer = try DiskResponseCache(directory: directory.url)
            for (age, key) in ["k1", "k2", "k3"].enumerated() {
                writer.store(makeEntry(key, body: body), forKey: key)
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: Double(-1_000 + age * 100))],
                    ofItemAtPath: writer.fileURL(forKey: key).path
                )
            }
            let fileSize = writer.totalSize / 3

            let reopened = try DiskResponseCache(directory: directory.url,
                                                 configuration: .init(sizeLimit: fileSize * 2 + fileSize / 2))
            #expect(reopened.totalSize == fileSize * 2)
            #expect(!FileManager.default.fileExists(atPath: reopened.fileURL(forKey: "k1").path))
            #expect(reopened.entry(forKey: "k2") != nil)
            #expect(reopened.entry(forKey: "k3") != nil)
        }
    }

    /// A file with the store's extension but no digest for a name is not an
    /// entry: it is not counted, trimmed or removed.
    @Test func aFileNotNamedByADigestIsLeftAlone() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            // Not a digest, a digest in upper case, a digest with another
            // extension.
            let digest = SHA256.hex(Data("a".utf8))
            let strangers = ["notes.courier-cache", digest.uppercased() + ".courier-cache", digest + ".txt"]
            for name in strangers {
                try Data(repeating: 1, count: 50_000).write(to: directory.url.appendingPathComponent(name))
            }

            let cache = try DiskResponseCache(directory: directory.url, configuration: .init(sizeLimit: 10_000))
            #expect(cache.totalSize == 0)
            for key in ["a", "b", "c", "d", "e"] {
                cache.store(makeEntry(key, body: Data(repeating: 2, count: 3_000)), forKey: key)
            }
            cache.removeAll()
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            // The strangers, and the store's key file, which outlives its entries.
            #expect(Set(left) == Set(strangers + [".courier-cache-key"]))
            #expect(cache.totalSize == 0)
        }
    }

    /// `bytes` with its last eight bytes replaced by the checksum of the rest,
    /// computed as the file format documents it: FNV-1a 64 over
    /// little-endian 64-bit words, then the last bytes, folding the high half
    /// into the low after every step; stored big-endian.
    static func withChecksumRewritten(_ bytes: Data) -> Data {
        let content = Array(bytes.dropLast(8))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var offset = 0
        while offset + 8 <= content.count {
            var word: UInt64 = 0
            for byte in content[offset..<offset + 8].reversed() { word = word << 8 | UInt64(byte) }
            hash = (hash ^ word) &* prime
            hash ^= hash >> 32
            offset += 8
        }
        for byte in content[offset...] {
            hash = (hash ^ UInt64(byte)) &* prime
            hash ^= hash >> 32
        }
        var result = Data(content)
        for shift in stride(from: 56, through: 0, by: -8) {
            result.append(UInt8(truncatingIfNeeded: hash >> UInt64(shift)))
        }
        return result
    }
}
