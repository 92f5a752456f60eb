import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// The cache plugin never stores a streamed body, nor answers a streamed
/// call from the store.
@Suite struct CacheStreamTests {
    @Test func aStreamedCallIsNeitherStoredNorServedFromTheCache() async throws {
        try await withServer { server in
            let store = MemoryResponseCache()
            let provider = Provider<TestTarget>(plugins: [CachePlugin(storage: store, configuration: .init(defaultStrategy: .cacheIfPossible))])
            let target = TestTarget(server.baseURL, path: "/echo")
            let streamed = try await provider.stream(target)
            #expect(try await streamed.collect(upTo: 1 << 20).isEmpty == false)
            _ = try await provider.request(target)
            #expect(server.hits("/echo") == 2)
            // Now cached by the plain call; a streamed call still goes out.
            _ = try await provider.request(target)
            #expect(server.hits("/echo") == 2)
            _ = try await provider.stream(target).collect(upTo: 1 << 20)
            #expect(server.hits("/echo") == 3)
        }
    }
}
