import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A disk cache in a folder someone else can reach: shared or planted
/// folders, links and pipes where entries should be, secrets in files, and a
/// folder removed under a running store.
struct DiskCacheTrustTests {
    private static func permissions(of url: URL) -> Int {
        var info = stat()
        _ = lstat(url.path, &info)
        return Int(info.st_mode & 0o777)
    }

    @Test func aFolderOpenToOthersIsMadeOwnerOnly() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            chmod(directory.url.path, 0o777)
            _ = try DiskResponseCache(directory: directory.url)
            #expect(Self.permissions(of: directory.url) == 0o700)
        }
    }

    @Test func aFolderThatIsALinkIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let real = directory.url.appendingPathComponent("real")
            let link = directory.url.appendingPathComponent("link")
            try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
            let error = #expect(throws: NetworkError.self) { try DiskResponseCache(directory: link) }
            guard case .plugin(_, let failure as CachePlugin.Failure)? = error, case .untrustedDirectory = failure else {
                Issue.record("expected untrustedDirectory, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func aFolderOfAnotherUserIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            // Needs the right to give a folder away: the suite runs as root in CI.
            try #require(chown(directory.url.path, 4242, 4242) == 0, "changing a folder's owner needs root")
            let error = #expect(throws: NetworkError.self) { try DiskResponseCache(directory: directory.url) }
            #expect(error.map { "\($0)".contains("belongs to another user") } == true)
        }
    }

    @Test func anEntryThatIsALinkIsAMissAndTheTargetIsUntouched() async throws {
        try await withTemporaryDirectory { directory in
            let store = try DiskResponseCache(directory: directory.url.appendingPathComponent("cache"))
            store.store(makeEntry("k", body: Data("mine".utf8)), forKey: "k")
            let victim = directory.url.appendingPathComponent("victim")
            try Data("precious".utf8).write(to: victim)
            let entry = store.fileURL(forKey: "k")
            try FileManager.default.removeItem(at: entry)
            try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: victim)
            #expect(store.entry(forKey: "k") == nil)
            #expect(try Data(contentsOf: victim) == Data("precious".utf8))
            #expect(!FileManager.default.fileExists(atPath: entry.path))
        }
    }

    @Test func anEntryThatIsAPipeIsAMissAtOnce() async throws {
        try await withTemporaryDirectory { directory in
            let store = try DiskResponseCache(directory: directory.url)
            let entry = store.fileURL(forKey: "k")
            try #require(mkfifo(entry.path, 0o600) == 0)
            // Reading a pipe with no writer would block forever.
            let found = try await withDeadline() { store.entry(forKey: "k") != nil }
            #expect(!found)
        }
    }

    @Test func filesHoldNoKeyQueryOrTokenInClear() async throws {
        try await withTemporaryDirectory { directory in
            let store = try DiskResponseCache(directory: directory.url)
            let key = "GET https://api.example.com/me?api_key=sekrit-key authorization-sha256=abc"
            var entry = makeEntry(key, body: Data("{}".utf8))
            entry.url = URL(string: "https://user:sekrit-password@api.example.com/me?api_key=sekrit-key#frag")
            store.store(entry, forKey: key)
            let bytes = try Data(contentsOf: store.fileURL(forKey: key))
            #expect(bytes.range(of: Data("sekrit".utf8)) == nil)
            #expect(bytes.range(of: Data("api_key".utf8)) == nil)
            let read = try #require(store.entry(forKey: key))
            #expect(read.key == key)
            #expect(read.body == Data("{}".utf8))
        }
    }

    @Test func aFolderRemovedWhileOpenIsMadeAgainByTheNextWrite() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.url.appendingPathComponent("cache")
            let store = try DiskResponseCache(directory: folder)
            try FileManager.default.removeItem(at: folder)
            store.store(makeEntry("k", body: Data("back".utf8)), forKey: "k")
            #expect(store.entry(forKey: "k")?.body == Data("back".utf8))
            #expect(Self.permissions(of: folder) == 0o700)
        }
    }
}
