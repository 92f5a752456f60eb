import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

@Suite struct DiskResponseCacheTests {
    @Test func aNewStoreOnTheSameDirectoryServesWhatAnEarlierOneStored() async throws {
        try await withTemporaryDirectory { directory in
            let entry = makeEntry("key", body: Data("persisted".utf8))
            try DiskResponseCache(directory: directory.url).store(entry, forKey: "key")

            let reopened = try DiskResponseCache(directory: directory.url)
            #expect(reopened.entry(forKey: "key") == entry)
            #expect(reopened.totalSize > 0)
        }
    }

    /// The file name is a keyed hash of the key, under a random key of the
    /// store's kept owner-only beside the entries: neither the name nor the
    /// file holds the key's plain SHA-256, nor the plain SHA-256 of the
    /// `Authorization` value, which would let a copy of the files test
    /// guesses of a password offline.
    @Test func namesFilesByAKeyedHashOfTheKey() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            let credential = "Basic " + Data("alice:hunter2".utf8).base64EncodedString()
            let url = try #require(URL(string: "https://example.com/a?b=c"))
            let target = TestTarget(url)
            var request = URLRequest(url: url)
            request.setValue(credential, forHTTPHeaderField: "Authorization")
            let key = try #require(CacheKey.make(for: request, target: target, fingerprint: cache.fingerprint(of:)))
            cache.store(makeEntry(key.base, body: Data("x".utf8)), forKey: key.base)

            let expected = try directory.cacheFileName(ofKey: key.base)
            #expect(directory.cacheFiles.map(\.lastPathComponent) == [expected])
            #expect(cache.fileURL(forKey: key.base).lastPathComponent == expected)
            let secretFile = directory.url.appendingPathComponent(".courier-cache-key")
            #expect(try directory.cacheSecret.count == 32)
            #expect(try FileManager.default.attributesOfItem(atPath: secretFile.path)[.posixPermissions] as? Int == 0o600)

            let plainKey = try #require(CacheKey.make(for: request, target: target))
            let guessable = [SHA256.hex(Data(key.base.utf8)), SHA256.hex(Data(plainKey.base.utf8)),
                             SHA256.hex(Data(credential.utf8))]
            let file = try Data(contentsOf: cache.fileURL(forKey: key.base))
            for digest in guessable {
                #expect(!expected.contains(digest))
                #expect(file.range(of: Data(digest.utf8)) == nil)
                #expect(!key.base.contains(digest))
            }
        }
    }

    /// Stores on two directories hash the same key differently; a store
    /// reopened on the same directory keeps its key, so its entries stay.
    @Test func eachDirectoryHasItsOwnKeyAndKeepsIt() async throws {
        try await withTemporaryDirectory { directory in
            let one = try DiskResponseCache(directory: directory.url.appendingPathComponent("one"))
            let two = try DiskResponseCache(directory: directory.url.appendingPathComponent("two"))
            #expect(one.fileURL(forKey: "k").lastPathComponent != two.fileURL(forKey: "k").lastPathComponent)
            #expect(one.fingerprint(of: Data("v".utf8)) != two.fingerprint(of: Data("v".utf8)))
            let again = try DiskResponseCache(directory: directory.url.appendingPathComponent("one"))
            #expect(again.fileURL(forKey: "k").lastPathComponent == one.fileURL(forKey: "k").lastPathComponent)
        }
    }

    /// A key file others may read, one that is a link, or one of the wrong
    /// size is not trusted: the store makes a new key (the old entries are
    /// never found again) and never reads through the link.
    @Test(arguments: ["readable", "link", "short"])
    func aKeyFileThatCannotBeTrustedIsReplaced(kind: String) async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let secretFile = directory.url.appendingPathComponent(".courier-cache-key")
            let planted = Data(repeating: 7, count: 32)
            let elsewhere = directory.url.appendingPathComponent("elsewhere")
            switch kind {
            case "readable":
                try planted.write(to: secretFile)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretFile.path)
            case "link":
                try planted.write(to: elsewhere)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: elsewhere.path)
                try FileManager.default.createSymbolicLink(at: secretFile, withDestinationURL: elsewhere)
            default:
                try Data(repeating: 7, count: 8).write(to: secretFile)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
            }
            let cache = try DiskResponseCache(directory: directory.url)
            let plantedName = SHA256.hmacHex(key: planted, message: Data("k".utf8)) + ".courier-cache"
            #expect(cache.fileURL(forKey: "k").lastPathComponent != plantedName)
            let values = try secretFile.resourceValues(forKeys: [.isSymbolicLinkKey])
            #expect(values.isSymbolicLink == false)
            #expect(try directory.cacheSecret.count == 32)
            #expect(try FileManager.default.attributesOfItem(atPath: secretFile.path)[.posixPermissions] as? Int == 0o600)
            if kind == "link" { #expect(try Data(contentsOf: elsewhere) == planted) }
        }
    }

    @Test func onlyTheOwnerMayReadTheFilesOrListTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            cache.store(makeEntry("key", body: Data("private".utf8)), forKey: "key")
            let file = try #require(directory.cacheFiles.first)
            let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.url.path)[.posixPermissions] as? Int
            #expect(fileMode == 0o600)
            #expect(directoryMode == 0o700)
        }
    }

    /// RFC 4231's known answer (test case 1): with a key file planted in the
    /// directory, the file name is the key's HMAC-SHA256 under it.
    @Test func fileNamesAreTheHMACOfAKnownAnswer() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let secretFile = directory.url.appendingPathComponent(".courier-cache-key")
            try Data(repeating: 0x0b, count: 20).write(to: secretFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
            let cache = try DiskResponseCache(directory: directory.url)
            #expect(cache.fileURL(forKey: "Hi There").lastPathComponent
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7.courier-cache")
        }
    }

    @Test func trimsTheLeastRecentlyUsedBeyondTheSizeLimit() async throws {
        try await withTemporaryDirectory { directory in
            let body = Data(repeating: 1, count: 4_000)
            let probe = try DiskResponseCache(directory: directory.url.appendingPathComponent("probe"))
            probe.store(makeEntry("a", body: body), forKey: "a")
            let fileSize = probe.totalSize

            let cache = try DiskResponseCache(directory: directory.url.appendingPathComponent("lru"),
                                              configuration: .init(sizeLimit: fileSize * 2 + fileSize / 2))
            cache.store(makeEntry("a", body: body), forKey: "a")
            cache.store(makeEntry("b", body: body), forKey: "b")
            _ = cache.entry(forKey: "a")
            cache.store(makeEntry("c", body: body), forKey: "c")

            #expect(cache.entry(forKey: "b") == nil)
            #expect(cache.entry(forKey: "a") != nil)
            #expect(cache.entry(forKey: "c") != nil)
            #expect(!FileManager.default.fileExists(atPath: cache.fileURL(forKey: "b").path))
            #expect(cache.totalSize <= fileSize * 2 + fileSize / 2)
        }
    }

    @Test func expiresEntriesByTheInjectedClockAndRemovesTheirFiles() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let cache = try DiskResponseCache(directory: directory.url, configuration: .init(clock: clock.clock))
            cache.store(makeEntry("short", body: Data("s".utf8), storedAt: clock.clock(),
                                  expiresAt: clock.clock().addingTimeInterval(30)), forKey: "short")
            cache.store(makeEntry("long", body: Data("l".utf8), storedAt: clock.clock(),
                                  expiresAt: clock.clock().addingTimeInterval(300)), forKey: "long")
            clock.advance(by: 31)
            #expect(cache.entry(forKey: "short") == nil)
            #expect(cache.entry(forKey: "long") != nil)
            #expect(!FileManager.default.fileExists(atPath: cache.fileURL(forKey: "short").path))
        }
    }

    @Test func appliesTheStoreDefaultLifetimeToEntriesWithoutExpiry() async throws {
        try await withTemporaryDirectory { directory in
            let clock = TestClock()
            let cache = try DiskResponseCache(directory: directory.url,
                                              configuration: .init(defaultLifetime: 10, clock: clock.clock))
            cache.store(makeEntry("a", body: Data("a".utf8), storedAt: clock.clock()), forKey: "a")
            clock.advance(by: 10)
            #expect(cache.entry(forKey: "a") == nil)
        }
    }

    enum Damage: String, CaseIterable, Sendable {
        case corrupt, corruptLastByte, twoTopBits, truncated, foreign, empty, olderVersion, version2

        func apply(to file: Data) -> Data {
            switch self {
            case .corrupt:
                var bytes = file
                bytes[bytes.count / 2] ^= 0xFF
                return bytes
            case .corruptLastByte:
                // The body's last byte, just before the checksum.
                var bytes = file
                bytes[bytes.count - 9] ^= 0x01
                return bytes
            case .twoTopBits:
                // The top bit of two bytes that end 64-bit words of the file,
                // inside the 300-byte body (which nothing but the checksum
                // reads): a word-wise checksum that only multiplies lets the
                // two changes cancel.
                var bytes = file
                let bodyStart = bytes.count - 8 - 300
                let first = bodyStart + (7 - bodyStart % 8 + 8) % 8
                bytes[bytes.startIndex + first] ^= 0x80
                bytes[bytes.startIndex + first + 8] ^= 0x80
                return bytes
            case .truncated: return file.prefix(file.count - 5)
            case .foreign: return Data(#"{"status":200,"body":"not ours"}"#.utf8)
            case .empty: return Data()
            case .olderVersion:
                // Version 1 kept its metadata as JSON: same magic, version 1.
                var bytes = file
                bytes[bytes.startIndex + 8] = 0
                bytes[bytes.startIndex + 9] = 1
                return bytes
            case .version2:
                // Version 2 had a byte-wise checksum: a file of it is a miss.
                var bytes = file
                bytes[bytes.startIndex + 9] = 2
                return bytes
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedFileIsAMissAndIsRemoved(damage: Damage) async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskResponseCache(directory: directory.url)
            cache.store(makeEntry("key", body: Data(repeating: 42, count: 300)), forKey: "key")
            let file = cache.fileURL(forKey: "key")
            let original = try Data(contentsOf: file)
            try damage.apply(to: original).write(to: file)

            #expect(cache.entry(forKey: "key") == nil, "\(damage) file served")
            #expect(!FileManager.default.fileExists(atPath: file.path), "\(damage) file left behind")
            #expect(try DiskResponseCache(directory: directory.url).entry(forKey: "key") == nil)
        }
    }

    @Test func twoHundredConcurrentReadersAndWritersLeaveEveryEntryWhole() async throws {
        try await withTemporaryDirectory { directory in
            // Two instances on one directory: atomic renames must hold across
            // them, not only the lock inside one.
            let first = try DiskResponseCache(directory: directory.url)
            let second = try DiskResponseCache(directory: directory.url)
            let keys = ["k0", "k1", "k2"]
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let cache = index % 4 < 2 ? first : second
                        let key = keys[index % keys.count]
                        if index.isMultiple(of: 2) {
                            let body = LoopbackServer.bytes(count: 20_000 + index * 37, seed: UInt64(index + 1))
                            cache.store(makeEntry(key, body: body), forKey: key)
                            return "write"
                        }
                        guard let entry = cache.entry(forKey: key) else { return "miss" }
                        let whole = entry.key == key && entry.statusCode == 200
                            && entry.value(forHTTPHeaderField: "X-Body-SHA256") == SHA256.hex(entry.body)
                        return whole ? "whole" : "broken"
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(!outcomes.contains("broken"))
            #expect(outcomes.filter { $0 == "write" }.count == 100)
            for key in keys {
                let entry = try #require(first.entry(forKey: key))
                #expect(entry.value(forHTTPHeaderField: "X-Body-SHA256") == SHA256.hex(entry.body))
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.hasSuffix(".partial") }
            #expect(leftovers.isEmpty)
        }
    }

    @Test func anUnwritableDirectoryIsAClearError() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            let file = directory.url.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            #expect {
                _ = try DiskResponseCache(directory: file.appendingPathComponent("cache"))
            } throws: { error in
                guard case .plugin(_, let underlying) = error as? NetworkError,
                      case .directoryUnavailable = underlying as? CachePlugin.Failure else { return false }
                return "\(error)".contains("Choose a writable directory")
            }
        }
    }
}
