import Courier
import CourierCache
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A clock a test moves by hand, so expiry needs no sleeping.
final class TestClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    var clock: CacheClock { { self.now.withLock { $0 } } }

    func advance(by seconds: TimeInterval) {
        now.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A fresh directory under the system's temporary directory, removed by
/// ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-cache-tests-\(UUID().uuidString)", isDirectory: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The cache files in the directory.
    /// The key of the store's keyed hashes, from its key file.
    var cacheSecret: Data {
        get throws { try Data(contentsOf: url.appendingPathComponent(".courier-cache-key")) }
    }

    /// The name of the file of `key` in a store on this directory.
    func cacheFileName(ofKey key: String) throws -> String {
        SHA256.hmacHex(key: try cacheSecret, message: Data(key.utf8)) + ".courier-cache"
    }

    var cacheFiles: [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "courier-cache" }
    }
}

/// Runs `body` with a temporary directory that is removed afterwards.
func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) async throws -> Result) async rethrows -> Result {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    return try await body(directory)
}

/// A target with a cache strategy, lifetime and opt-ins a test sets.
struct CachedTarget: CacheableTarget {
    var base: TestTarget
    var cacheStrategy: CacheStrategy?
    var cacheLifetime: TimeInterval?
    var cacheKeyExtras: [String] = []
    var cachesRequestsWithBody = false

    init(
        _ server: LoopbackServer,
        path: String,
        method: HTTPMethod = .get,
        task: RequestTask = .requestPlain,
        headers: [String: String]? = nil,
        strategy: CacheStrategy? = nil,
        lifetime: TimeInterval? = nil
    ) {
        base = TestTarget(server.baseURL, path: path, method: method, task: task, headers: headers)
        cacheStrategy = strategy
        cacheLifetime = lifetime
    }

    var baseURL: URL { base.baseURL }
    var path: String { base.path }
    var method: HTTPMethod { base.method }
    var task: RequestTask { base.task }
    var headers: [String: String]? { base.headers }
}

/// A route that counts its hits and answers with the count in the body, so a
/// test tells a cached answer from a fresh one.
func installCounter(
    on server: LoopbackServer,
    path: String,
    status: Int = 200,
    headers: [(name: String, value: String)] = []
) {
    let counter = Counter()
    server.route(path) { _ in
        .text("response \(counter.next())", status: status, headers: headers)
    }
}

/// Counts from 1, safely from many tasks.
final class Counter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

extension Response {
    var text: String { String(decoding: data, as: UTF8.self) }
}

/// A stored entry with `body`, for the store tests.
func makeEntry(_ key: String, body: Data, storedAt: Date = Date(), expiresAt: Date? = nil) -> CachedResponse {
    CachedResponse(
        key: key, statusCode: 200,
        headers: ["Content-Type": "application/octet-stream", "X-Body-SHA256": SHA256.hex(body)],
        body: body, url: URL(string: "https://example.com/\(key)"), storedAt: storedAt, expiresAt: expiresAt
    )
}
