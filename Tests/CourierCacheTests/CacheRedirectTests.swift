import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// What a redirect to another origin may leave in the cache: nothing.
@Suite(.hangsFailTheSuite)
struct CacheRedirectTests {
    @Test(arguments: [301, 302, 307])
    func anAnswerFromAnotherOriginIsNeverStoredUnderTheRequestsKey(status: Int) async throws {
        try await withServer { home in
            try await withServer { elsewhere in
                let foreign = elsewhere.url("/planted").absoluteString
                home.route("/feed") { _ in LoopbackResponse(status: status, headers: [("Location", foreign)]) }
                elsewhere.route("/planted") { _ in
                    .text("planted", headers: [("Cache-Control", "public, max-age=3600")])
                }
                let store = MemoryResponseCache()
                let provider = Provider<CachedTarget>(plugins: [CachePlugin(storage: store)])
                let target = CachedTarget(home, path: "/feed", strategy: .cacheIfPossible)

                let first = try await provider.request(target)
                #expect(first.text == "planted")
                #expect(store.count == 0)
                let second = try await provider.request(target)
                #expect(second.cacheStatus == nil)
                #expect(home.hits("/feed") == 2)
                await #expect(throws: NetworkError.self) {
                    _ = try await provider.request(target, cachePolicy: .cache)
                }
            }
        }
    }

    @Test func aRedirectWithinTheOriginIsStillStored() async throws {
        try await withServer { server in
            server.route("/feed") { _ in LoopbackResponse(status: 302, headers: [("Location", "/feed/v2")]) }
            server.route("/feed/v2") { _ in .text("current", headers: [("Cache-Control", "max-age=3600")]) }
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible)

            #expect(try await provider.request(target).text == "current")
            let second = try await provider.request(target)
            #expect(second.text == "current")
            #expect(second.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
        }
    }
}
