import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

@Suite struct MemoryResponseCacheTests {
    @Test func returnsWhatWasStored() {
        let cache = MemoryResponseCache()
        let entry = makeEntry("a", body: Data("hello".utf8))
        cache.store(entry, forKey: "a")
        #expect(cache.entry(forKey: "a") == entry)
        #expect(cache.entry(forKey: "b") == nil)
        cache.removeEntry(forKey: "a")
        #expect(cache.entry(forKey: "a") == nil)
    }

    @Test func dropsTheLeastRecentlyUsedBeyondTheCountLimit() {
        let cache = MemoryResponseCache(configuration: .init(countLimit: 2))
        cache.store(makeEntry("a", body: Data("a".utf8)), forKey: "a")
        cache.store(makeEntry("b", body: Data("b".utf8)), forKey: "b")
        _ = cache.entry(forKey: "a")  // a is now more recent than b
        cache.store(makeEntry("c", body: Data("c".utf8)), forKey: "c")
        #expect(cache.entry(forKey: "a") != nil)
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.entry(forKey: "c") != nil)
        #expect(cache.count == 2)
    }

    /// Thousands of random stores, hits and removals against a plain list
    /// kept in order of use: the cache keeps exactly the most recently used
    /// keys, with the body last stored for each.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func evictsExactlyLikeAListInOrderOfUse(seed: UInt64) {
        let limit = 16
        let cache = MemoryResponseCache(configuration: .init(countLimit: limit, costLimit: .max))
        var model: [(key: String, body: Data)] = []  // least recent first
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        for step in 0..<5_000 {
            let key = "k\(next(40))"
            switch next(10) {
            case 0..<4:
                let body = Data("\(key)@\(step)".utf8)
                cache.store(makeEntry(key, body: body), forKey: key)
                model.removeAll { $0.key == key }
                model.append((key, body))
                if model.count > limit { model.removeFirst() }
            case 4..<9:
                let expected = model.firstIndex { $0.key == key }
                #expect(cache.entry(forKey: key)?.body == expected.map { model[$0].body })
                if let expected { model.append(model.remove(at: expected)) }
            default:
                cache.removeEntry(forKey: key)
                model.removeAll { $0.key == key }
            }
        }
        #expect(cache.count == model.count)
        for (key, body) in model { #expect(cache.entry(forKey: key)?.body == body) }
    }

    @Test func dropsTheLeastRecentlyUsedBeyondTheByteLimit() {
        let body = Data(repeating: 7, count: 1_000)
        let oneEntry = makeEntry("a", body: body).cost
        let cache = MemoryResponseCache(configuration: .init(countLimit: 100, costLimit: oneEntry * 2 + 10))
        cache.store(makeEntry("a", body: body), forKey: "a")
        cache.store(makeEntry("b", body: body), forKey: "b")
        _ = cache.entry(forKey: "a")
        cache.store(makeEntry("c", body: body), forKey: "c")
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.entry(forKey: "a") != nil)
        #expect(cache.entry(forKey: "c") != nil)
        #expect(cache.totalCost <= oneEntry * 2 + 10)
    }

    @Test func neverKeepsAnEntryLargerThanTheByteLimit() {
        let cache = MemoryResponseCache(configuration: .init(costLimit: 100))
        cache.store(makeEntry("big", body: Data(count: 1_000)), forKey: "big")
        #expect(cache.entry(forKey: "big") == nil)
        #expect(cache.count == 0)
    }

    @Test func expiresEntriesByTheInjectedClock() {
        let clock = TestClock()
        let cache = MemoryResponseCache(configuration: .init(defaultLifetime: 60, clock: clock.clock))
        cache.store(makeEntry("a", body: Data("a".utf8), storedAt: clock.clock()), forKey: "a")
        clock.advance(by: 59)
        #expect(cache.entry(forKey: "a") != nil)
        clock.advance(by: 1)
        #expect(cache.entry(forKey: "a") == nil)
        #expect(cache.count == 0)
    }

    @Test func staysWholeUnderConcurrentReadersAndWriters() async {
        let cache = MemoryResponseCache(configuration: .init(countLimit: 3))
        let keys = ["k0", "k1", "k2", "k3"]
        let broken = await withTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let key = keys[index % keys.count]
                    if index.isMultiple(of: 2) {
                        cache.store(makeEntry(key, body: LoopbackServer.bytes(count: 512 + index, seed: UInt64(index))), forKey: key)
                        return 0
                    }
                    guard let entry = cache.entry(forKey: key) else { return 0 }
                    return entry.value(forHTTPHeaderField: "X-Body-SHA256") == SHA256.hex(entry.body) ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(broken == 0)
        #expect(cache.count <= 3)
    }
}
