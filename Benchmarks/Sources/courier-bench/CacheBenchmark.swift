import CourierCache
import Foundation

/// Item 5: cache hit latency. Memory: `MemoryResponseCache` against a bare
/// `[String: CachedResponse]` lookup under a lock (the cache is shared between
/// tasks, so the bare thing it wraps is a locked dictionary). Disk:
/// `DiskResponseCache` against a bare read of the same entry's file
/// (`FileManager.contents(atPath:)`, no decoding).
struct CacheBenchmark {
    let quick: Bool

    func run() async throws -> [Row] {
        var rows: [Row] = []
        for count in [1_000, 100_000] {
            rows += memory(entries: count)
        }
        for count in (quick ? [1_000, 10_000] : [1_000, 100_000]) {
            rows += try disk(entries: count)
        }
        return rows
    }

    private static func entry(_ key: String) -> CachedResponse {
        CachedResponse(key: key, statusCode: 200, headers: ["Content-Type": "application/json"],
                       body: Payload.json, url: nil, storedAt: Date(), expiresAt: nil)
    }

    private static func keys(_ count: Int) -> [String] {
        (0..<count).map { "GET http://127.0.0.1/items/\($0)" }
    }

    /// `lookups` keys picked uniformly, the same sequence for both sides.
    private static func sample(_ keys: [String], lookups: Int) -> [String] {
        var generator = SplitMix(seed: 7)
        return (0..<lookups).map { _ in keys[Int(generator.next() % UInt64(keys.count))] }
    }

    private func memory(entries count: Int) -> [Row] {
        let keys = Self.keys(count)
        let cache = MemoryResponseCache(configuration: .init(countLimit: count, costLimit: .max))
        var dictionary: [String: CachedResponse] = [:]
        for key in keys {
            let entry = Self.entry(key)
            cache.store(entry, forKey: key)
            dictionary[key] = entry
        }
        let lookups = Self.sample(keys, lookups: 200_000)
        let lock = NSLock()
        let result = interleavedNanoseconds(rounds: quick ? 3 : 7, count: lookups.count,
                                            courier: { for key in lookups { blackHole(cache.entry(forKey: key)) } },
                                            bare: {
                                                for key in lookups {
                                                    lock.lock()
                                                    let entry = dictionary[key]
                                                    lock.unlock()
                                                    blackHole(entry)
                                                }
                                            })
        let probe = Array(lookups.prefix(1_000))
        return [
            Row(name: "memory cache hit, \(count) entries", unit: "ns", courier: result.courier,
                bare: result.bare, bareAgain: result.bareAgain, higherIsBetter: false),
            Row(name: "memory cache hit, \(count) entries, allocations per hit", unit: "allocs",
                courier: Self.allocationsPerItem(probe) { blackHole(cache.entry(forKey: $0)) },
                bare: Self.allocationsPerItem(probe) { key in
                    lock.lock()
                    let entry = dictionary[key]
                    lock.unlock()
                    blackHole(entry)
                }, higherIsBetter: false),
        ]
    }

    private func disk(entries count: Int) throws -> [Row] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskResponseCache(directory: directory, configuration: .init(sizeLimit: .max))
        let keys = Self.keys(count)
        log("  filling disk cache with \(count) entries")
        for key in keys { cache.store(Self.entry(key), forKey: key) }
        let lookups = Self.sample(keys, lookups: quick ? 2_000 : 10_000)
        let paths = lookups.map { cache.fileURL(forKey: $0).path }
        let result = interleavedNanoseconds(rounds: quick ? 3 : 5, count: lookups.count,
                                            courier: { for key in lookups { blackHole(cache.entry(forKey: key)) } },
                                            bare: { for path in paths { blackHole(FileManager.default.contents(atPath: path)) } })
        let probe = Array(lookups.prefix(1_000))
        let probePaths = Array(paths.prefix(1_000))
        return [
            Row(name: "disk cache hit, \(count) entries", unit: "us", courier: result.courier / 1_000,
                bare: result.bare / 1_000, bareAgain: result.bareAgain / 1_000, higherIsBetter: false),
            Row(name: "disk cache hit, \(count) entries, allocations per hit", unit: "allocs",
                courier: Self.allocationsPerItem(probe) { blackHole(cache.entry(forKey: $0)) },
                bare: Self.allocationsPerItem(probePaths) { blackHole(FileManager.default.contents(atPath: $0)) },
                higherIsBetter: false),
        ]
    }

    /// Allocations per call of `body`, over `items`.
    private static func allocationsPerItem(_ items: [String], _ body: (String) -> Void) -> Double {
        allocations { for item in items { body(item) } } / Double(max(items.count, 1))
    }

    /// Nanoseconds per lookup of each side (and of the bare side again),
    /// interleaved.
    private func interleavedNanoseconds(rounds: Int, count: Int, courier: () -> Void, bare: () -> Void)
        -> (courier: Double, bare: Double, bareAgain: Double) {
        let seconds = interleavedSeconds(rounds: rounds, courier: courier, bare: bare)
        let scale = 1e9 / Double(count)
        return (seconds.courier * scale, seconds.bare * scale, seconds.bareAgain * scale)
    }
}

/// Keeps a value alive so the optimiser cannot drop the lookup.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A small deterministic random generator.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
