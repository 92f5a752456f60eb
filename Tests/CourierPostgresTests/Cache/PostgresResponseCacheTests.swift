import Courier
import CourierCache
import CourierPostgres
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = Date(timeIntervalSince1970: 1_800_000_000)

    var date: Date { lock.withLock { now } }

    func advance(_ seconds: TimeInterval) { lock.withLock { now = now.addingTimeInterval(seconds) } }
}

func entry(_ body: String, key: String = "", storedAt: Date = Date(), expiresAt: Date? = nil) -> CachedResponse {
    CachedResponse(key: key, statusCode: 200, headers: ["Content-Type": "text/plain", "ETag": "\"1\""], body: Data(body.utf8),
                   url: URL(string: "https://api.example.com/items?token=secret"), storedAt: storedAt, expiresAt: expiresAt)
}

/// For the size-limit tests: a cache on `storage` with room for `count`
/// entries of `body` (1,000 bytes), each costing `one`, on a clock the test
/// moves.
func cacheWithRoom(for count: Int, on storage: PostgresStorage)
    -> (cache: PostgresResponseCache, clock: TestClock, body: String, one: Int) {
    let clock = TestClock()
    let body = String(repeating: "x", count: 1_000)
    let one = entry(body, key: "k0").cost
    let configuration = PostgresResponseCache.Configuration(sizeLimit: one * count, timeout: .seconds(5), writeTimeout: .seconds(60),
                                                            clock: { clock.date })
    return (PostgresResponseCache(storage: storage, configuration: configuration), clock, body, one)
}

/// Time-outs far beyond any query here, so a busy machine cannot turn a
/// hit into a miss, nor drop a write (the outage test measures the short
/// ones). The first write also creates the table: under the thread
/// sanitizer it once took longer than the default 2 s write time-out, and
/// the entry it carried was never stored.
let patient = PostgresResponseCache.Configuration(timeout: .seconds(5), writeTimeout: .seconds(60))

extension PostgresTests {
    @Suite
    struct PostgresResponseCacheTests {
        @Test func anEntryStoredByOneProcessIsAHitInAnotherAndRemoveAllClearsItForAll() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { first, second in
                    let mine = PostgresResponseCache(storage: first, configuration: patient)
                    let theirs = PostgresResponseCache(storage: second, configuration: patient)
                    mine.store(entry("hello"), forKey: "k1")
                    await mine.waitForPendingWrites()

                    let hit = try #require(theirs.entry(forKey: "k1"))
                    #expect(hit.body == Data("hello".utf8))
                    #expect(hit.key == "k1")
                    #expect(hit.etag == "\"1\"")
                    #expect(hit.url?.query == nil)  // no query, so no secret, at rest

                    mine.removeAll()
                    #expect(theirs.entry(forKey: "k1") == nil)
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache", on: first) == [0])
                }
            }
        }

        @Test func entriesOfOneUserAreNeverServedToAnother() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let cache = PostgresResponseCache(storage: storage, configuration: patient)
                    var alice = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
                    alice.setValue("Bearer alice", forHTTPHeaderField: "Authorization")
                    var bob = alice
                    bob.setValue("Bearer bob", forHTTPHeaderField: "Authorization")
                    let target = PlainTarget()
                    let aliceKey = try #require(CacheKey.make(for: alice, target: target))
                    let bobKey = try #require(CacheKey.make(for: bob, target: target))

                    cache.store(entry("alice's"), forKey: aliceKey.base)
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: bobKey.base) == nil)
                    #expect(cache.entry(forKey: aliceKey.base)?.body == Data("alice's".utf8))
                    // Neither the key nor the token is stored in clear.
                    #expect(try await integers(
                        "SELECT count(*)::bigint FROM courier_cache WHERE position('alice' in encode(key_digest, 'escape')) > 0", on: storage
                    ) == [0])
                }
            }
        }

        @Test func anExpiredEntryIsAMiss() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let clock = TestClock()
                    let cache = PostgresResponseCache(storage: storage, configuration: .init(timeout: .seconds(5), clock: { clock.date }))
                    cache.store(entry("soon gone", storedAt: clock.date, expiresAt: clock.date.addingTimeInterval(10)), forKey: "k")
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: "k") != nil)
                    clock.advance(11)
                    #expect(cache.entry(forKey: "k") == nil)
                }
            }
        }

        /// A read hits while every thread of the cooperative pool is held,
        /// as a burst of synchronous reads holds them: `ResponseCaching` is
        /// synchronous, so each read holds its thread while it waits for the
        /// database. The cache's database work therefore runs on threads of
        /// its own. On the pool's, it would wait behind what holds them until
        /// the read's time-out made it a miss and put the cache to rest. On
        /// Linux the pool's threads are Dispatch's global queue's, so blocks
        /// waiting there hold them. In a process of its own, since this holds
        /// every pool thread of its process.
        @Test(.timeLimit(.minutes(5)))
        func aReadHitsWhileEveryPoolThreadIsHeld() async throws {
            try await MeasuredAlone.run(suite: "PostgresResponseCacheTests", case: "held") {
                try await withTemporaryPostgres { postgres in
                    try await withStorage(postgres) { storage in
                        let cache = PostgresResponseCache(storage: storage, configuration: patient)
                        cache.store(entry("shared"), forKey: "k")
                        await cache.waitForPendingWrites()
                        #expect(cache.entry(forKey: "k") != nil)
                        // The read's own time-out (5 s) ends it well before the hold.
                        let (hit, beforeTheDeadline) = whileDispatchsGlobalQueueIsHeld(seconds: 30) { _ in
                            cache.entry(forKey: "k") != nil
                        }
                        MeasuredAlone.report("a read while the pool was held: \(hit ? "hit" : "miss")")
                        #expect(hit && beforeTheDeadline)
                    }
                }
            }
        }

        @Test func pastTheSizeLimitTheLeastRecentlyUsedEntriesGo() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let (cache, clock, body, one) = cacheWithRoom(for: 3, on: storage)
                    for index in 0..<3 {
                        cache.store(entry(body), forKey: "k\(index)")
                        clock.advance(1)
                    }
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: "k0") != nil)  // now the most recently used
                    clock.advance(1)
                    cache.store(entry(body), forKey: "k3")
                    await cache.waitForPendingWrites()

                    #expect(cache.entry(forKey: "k1") == nil)
                    #expect(cache.entry(forKey: "k0") != nil)
                    #expect(cache.entry(forKey: "k2") != nil)
                    #expect(cache.entry(forKey: "k3") != nil)
                    let total = try await integers("SELECT sum(size)::bigint FROM courier_cache", on: storage)
                    #expect(total.allSatisfy { $0 <= one * 3 })

                    cache.store(entry(String(repeating: "y", count: one * 4)), forKey: "huge")
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: "huge") == nil)
                }
            }
        }

        @Test func anExpiredEntryDoesNotPushALiveOneOutOfTheSizeLimit() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let (cache, clock, body, _) = cacheWithRoom(for: 2, on: storage)
                    cache.store(entry(body, storedAt: clock.date), forKey: "old")
                    clock.advance(1)
                    // More recently used than "old", and expired by the next write.
                    cache.store(entry(body, storedAt: clock.date, expiresAt: clock.date.addingTimeInterval(5)), forKey: "brief")
                    clock.advance(10)
                    cache.store(entry(body, storedAt: clock.date), forKey: "new")
                    await cache.waitForPendingWrites()

                    // "brief" goes for its expiry; "old" and "new" fit the limit.
                    let rows = try await integers("SELECT count(*)::bigint FROM courier_cache", on: storage)
                    #expect(rows == [2])
                    #expect(cache.entry(forKey: "brief") == nil)
                    #expect(cache.entry(forKey: "old") != nil)
                    #expect(cache.entry(forKey: "new") != nil)
                }
            }
        }

        @Test func badRowsAreMisses() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let cache = PostgresResponseCache(storage: storage, configuration: patient)
                    for key in ["short", "headers", "vary", "status"] { cache.store(entry("a body of some length"), forKey: key) }
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: "short") != nil)

                    let digest = { (key: String) in "sha256(convert_to('\(key)', 'UTF8'))" }
                    try await execute("UPDATE courier_cache SET body = substring(body from 1 for 3) WHERE key_digest = \(digest("short"))", on: storage)
                    try await execute("UPDATE courier_cache SET headers = '\\x00ff7b' WHERE key_digest = \(digest("headers"))", on: storage)
                    try await execute("UPDATE courier_cache SET vary = '\\x5b5d' WHERE key_digest = \(digest("vary"))", on: storage)
                    try await execute("UPDATE courier_cache SET status = -7 WHERE key_digest = \(digest("status"))", on: storage)
                    for key in ["short", "headers", "vary", "status"] {
                        #expect(cache.entry(forKey: key) == nil, "\(key)")
                    }
                    // Bad rows are deleted.
                    await cache.waitForPendingWrites()
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache", on: storage) == [0])
                }
            }
        }

        @Test func aSchemaOfAnotherVersionIsAMiss() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let cache = PostgresResponseCache(storage: storage, configuration: patient)
                    cache.store(entry("old"), forKey: "k")
                    await cache.waitForPendingWrites()
                    try await execute("UPDATE courier_schema SET version = 2", on: storage)
                }
                try await withStorage(postgres) { storage in
                    let cache = PostgresResponseCache(storage: storage, configuration: patient)
                    #expect(cache.entry(forKey: "k") == nil)
                    cache.store(entry("new"), forKey: "k2")
                    await cache.waitForPendingWrites()
                    cache.removeAll()
                    let rows = try await integers("SELECT count(*)::bigint FROM courier_cache", on: storage)
                    #expect(rows == [1])
                }
            }
        }
    }
}

struct PlainTarget: TargetType {
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}
