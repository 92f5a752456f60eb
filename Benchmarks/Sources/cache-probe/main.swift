import CourierCache
import Foundation

// cache-probe memory|dictionary|disk|file|keys ENTRIES LOOKUPS
//
// Memory cache hits, or the bare locked dictionary lookups they are compared
// with; disk cache hits, or the bare reads of the same files
// (`FileManager.contents(atPath:)`); and nothing else: a program small enough for valgrind's callgrind,
// which counts the instructions each side runs where the machine offers no
// hardware counters to `perf stat -e instructions` and its timings swing.
// "keys" only picks the keys, as the other modes do before each lookup. Run
// each side with two LOOKUPS counts and subtract to cancel the set-up, then
// subtract "keys" to leave the lookups:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//       Benchmarks/.build/release/cache-probe memory 1000 100000
//
// (the "Collected" line is the instruction count; --cache-sim=yes adds
// cache misses).

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let lookupCount = Int(arguments[3]), count > 0 else {
    print("usage: cache-probe memory|dictionary|disk|file|keys ENTRIES LOOKUPS")
    exit(2)
}

let body = Data(repeating: 0x7B, count: 1_024)
let keys = (0..<count).map { "GET http://127.0.0.1/items/\($0)" }
func entry(_ key: String) -> CachedResponse {
    CachedResponse(key: key, statusCode: 200, headers: ["Content-Type": "application/json"],
                   body: body, url: nil, storedAt: Date(), expiresAt: nil)
}
// The same uniformly picked keys for both sides (SplitMix64, seed 7).
var state: UInt64 = 7
let lookups = (0..<lookupCount).map { _ in
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((value ^ (value >> 31)) % UInt64(count))
}

/// Each side in a function of its own, with its state in locals, as the
/// benchmark's closures have it. (A dictionary at top level is a global, and
/// a lookup in it copies the value twice: an earlier version of this probe
/// did that and showed the bare side dearer than the cache.)
func memoryHits(_ keys: [String], _ lookups: [Int]) -> Int {
    let cache = MemoryResponseCache(configuration: .init(countLimit: count, costLimit: .max))
    for key in keys { cache.store(entry(key), forKey: key) }
    var found = 0
    for index in lookups where cache.entry(forKey: keys[index]) != nil { found += 1 }
    return found
}

func dictionaryHits(_ keys: [String], _ lookups: [Int]) -> Int {
    let lock = NSLock()
    var dictionary: [String: CachedResponse] = [:]
    for key in keys { dictionary[key] = entry(key) }
    var found = 0
    for index in lookups {
        lock.lock()
        let hit = dictionary[keys[index]]
        lock.unlock()
        if hit != nil { found += 1 }
    }
    return found
}

/// Disk hits on a store filled in a fresh directory (removed at the end), or
/// with `bare`, reads of the same files (their paths made once per entry, with
/// the filling, so a lookup only reads). Filling counts towards the total, so
/// subtract a run with fewer lookups; `perf record` shows the hits apart.
func diskHits(_ keys: [String], _ lookups: [Int], bare: Bool) -> Int {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("cache-probe-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    guard let cache = try? DiskResponseCache(directory: directory, configuration: .init(sizeLimit: .max)) else {
        print("cannot open a disk cache in \(directory.path)")
        exit(1)
    }
    for key in keys { cache.store(entry(key), forKey: key) }
    var found = 0
    if bare {
        let paths = keys.map { cache.fileURL(forKey: $0).path }
        for index in lookups where FileManager.default.contents(atPath: paths[index]) != nil { found += 1 }
    } else {
        for index in lookups where cache.entry(forKey: keys[index]) != nil { found += 1 }
    }
    return found
}

let found: Int
switch arguments[1] {
case "disk":
    found = diskHits(keys, lookups, bare: false)
case "file":
    found = diskHits(keys, lookups, bare: true)
case "memory":
    found = memoryHits(keys, lookups)
case "dictionary":
    found = dictionaryHits(keys, lookups)
case "keys":
    found = lookups.count { !keys[$0].isEmpty }
default:
    print("usage: cache-probe memory|dictionary|disk|file|keys ENTRIES LOOKUPS")
    exit(2)
}
print("\(arguments[1]): \(found) hits of \(lookupCount)")
