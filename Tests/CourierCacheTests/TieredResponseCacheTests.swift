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

    @Test func aRemovalDuringAReadThroughIsNotUndone() async throws {
        let memory = MemoryResponseCache()
        let back = InterruptedStore()
        let tiered = TieredResponseCache(memory, over: back)
        let entry = makeEntry("key", body: Data("removed".utf8))
        back.inner.store(entry, forKey: "key")

        let removed = DispatchSemaphore(value: 0)
        back.afterRead = {
            // Between the back store's read and the copy to the front, another
            // thread removes the entry. Unguarded, the removal finishes first
            // and the copy resurrects it; guarded, it waits for the read, and
            // the bounded wait below simply runs out.
            Thread.detachNewThread {
                tiered.removeEntry(forKey: "key")
                removed.signal()
            }
            if removed.wait(timeout: .now() + 0.5) == .success { removed.signal() }
        }
        _ = tiered.entry(forKey: "key")
        // On a thread of its own, not Dispatch's global queue, whose few
        // threads a blocking wait would take from every other test.
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                removed.wait()
                continuation.resume()
            }
        }
        #expect(memory.entry(forKey: "key") == nil)
        #expect(back.inner.entry(forKey: "key") == nil)
    }
}

/// A back store that runs `afterRead` once, after reading and before returning.
private final class InterruptedStore: ResponseCaching {
    let inner = MemoryResponseCache()
    private let hook = Mutex<(@Sendable () -> Void)?>(nil)

    var afterRead: (@Sendable () -> Void)? {
        get { hook.withLock { $0 } }
        set { hook.withLock { $0 = newValue } }
    }

    func entry(forKey key: String) -> CachedResponse? {
        let entry = inner.entry(forKey: key)
        hook.withLock { hook in
            defer { hook = nil }
            return hook
        }?()
        return entry
    }

    func store(_ entry: CachedResponse, forKey key: String) { inner.store(entry, forKey: key) }
    func removeEntry(forKey key: String) { inner.removeEntry(forKey: key) }
    func removeAll() { inner.removeAll() }
}
