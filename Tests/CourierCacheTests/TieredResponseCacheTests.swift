import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

@Suite struct TieredResponseCacheTests {
    @Test func readsThroughToDiskAndCopiesHitsIntoMemory() async throws {
        try await withTemporaryDirectory { directory in
            let entry = makeEntry("key", body: Data("tiered".utf8))
            try DiskResponseCache(directory: directory.url).store(entry, forKey: "key")

            let memory = MemoryResponseCache()
            let tiered = TieredResponseCache(memory, over: try DiskResponseCache(directory: directory.url))
            #expect(memory.entry(forKey: "key") == nil)
            #expect(tiered.entry(forKey: "key") == entry)
            #expect(memory.entry(forKey: "key") == entry)

            tiered.removeEntry(forKey: "key")
            #expect(try DiskResponseCache(directory: directory.url).entry(forKey: "key") == nil)
        }
    }
}
