import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// What the cache keeps with the settings nobody changed: nothing a server
/// forbids keeping, and nothing longer than the configured lifetime.
@Suite struct CacheDefaultsTests {
    @Test(arguments: ["no-store", "private, max-age=60", "max-age=60, no-store"])
    func withDefaultSettingsAForbiddenResponseIsNeverStored(cacheControl: String) async throws {
        try await withServer { server in
            installCounter(on: server, path: "/mine", headers: [("Cache-Control", cacheControl)])
            let store = MemoryResponseCache()
            let provider = Provider<CachedTarget>(plugins: [CachePlugin(storage: store)])
            let target = CachedTarget(server, path: "/mine", strategy: .cacheIfPossible)

            let first = try await provider.request(target)
            let second = try await provider.request(target)
            #expect(first.text == "response 1")
            #expect(second.text == "response 2")
            #expect(store.count == 0)
        }
    }

    @Test(arguments: [false, true])
    func aServersMaxAgeKeepsAnEntryPastTheLifetimeOnlyWhenAllowed(allowed: Bool) async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed", headers: [("Cache-Control", "max-age=86400")])
            let clock = TestClock()
            let plugin = CachePlugin(configuration: .init(
                defaultStrategy: .cacheIfPossible, lifetime: 60,
                httpSemantics: .init(extendsLifetime: allowed), clock: clock.clock
            ))
            let provider = Provider<CachedTarget>(plugins: [plugin])
            let target = CachedTarget(server, path: "/feed")

            _ = try await provider.request(target)
            clock.advance(by: 120) // past the configured minute, inside the server's day
            let later = try await provider.request(target)
            #expect(later.text == (allowed ? "response 1" : "response 2"))
            #expect(server.hits("/feed") == (allowed ? 1 : 2))
        }
    }
}
