import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// The plugin over a disk store: what one provider stored, a new provider on
/// the same directory serves.
@Suite struct CachePluginDiskTests {
    @Test func aNewProviderServesWhatAnEarlierOneStored() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            try await withTemporaryDirectory { directory in
                let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible)
                let first = Provider<CachedTarget>(plugins: [CachePlugin(storage: try DiskResponseCache(directory: directory.url))])
                #expect(try await first.request(target).text == "response 1")

                let second = Provider<CachedTarget>(plugins: [CachePlugin(storage: try DiskResponseCache(directory: directory.url))])
                let cached = try await second.request(target)
                #expect(cached.text == "response 1")
                #expect(cached.cacheStatus == .hit)
                #expect(cached.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
                #expect(server.hits("/feed") == 1)
            }
        }
    }

    @Test func aTieredStoreServesFromDiskAfterARestart() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            try await withTemporaryDirectory { directory in
                func makeProvider() throws -> Provider<CachedTarget> {
                    let store = TieredResponseCache(MemoryResponseCache(), over: try DiskResponseCache(directory: directory.url))
                    return Provider<CachedTarget>(plugins: [CachePlugin(storage: store)])
                }
                let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible)
                _ = try await makeProvider().request(target)
                #expect(try await makeProvider().request(target).text == "response 1")
                #expect(server.hits("/feed") == 1)
            }
        }
    }
}
