// The code of Plugins/Cache/CourierCache.docc/CourierCache.md (the same
// example as the Caching article's first one).

import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Courier
import CourierCache

@Suite struct CourierCacheCatalogSnippets {
    @Test func theSecondCallIsAnsweredByTheCache() async throws {
        try await withServer { server in
            let counter = CallCounter()
            server.route("/feed") { _ in .text("feed \(counter.next())") }
            let feed = API(baseURL: server.baseURL, path: "/feed")
            let cache = CachePlugin(storage: MemoryResponseCache(), configuration: .init(lifetime: 600))
            let provider = Provider<API>(plugins: [cache])

            let first = try await provider.request(feed)                     // from the server; stored
            let again = try await provider.request(feed, cachePolicy: .cache) // from the cache; nothing sent
            print(again.cacheStatus == .hit)
            #expect(first.bodyText == "feed 1")
            #expect(again.bodyText == "feed 1")
            #expect(again.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
            #expect((cache.storage as? MemoryResponseCache)?.count == 1)
        }
    }
}
