import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

@Suite struct CacheStrategyTests {
    // MARK: - server, cache, cacheIfPossible

    @Test func serverAlwaysAsksTheServerAndStillStores() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed", strategy: .server)

            #expect(try await provider.request(target).text == "response 1")
            #expect(try await provider.request(target).text == "response 2")
            #expect(server.hits("/feed") == 2)
            let cached = try await provider.request(target, cachePolicy: .cache)
            #expect(cached.text == "response 2")
            #expect(cached.cacheStatus == .hit)
            #expect(server.hits("/feed") == 2)
        }
    }

    @Test func cacheOnlyFailsClearlyOnAMissAndSendsNothing() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed", strategy: .cache)

            await #expect {
                _ = try await provider.request(target)
            } throws: { error in
                guard case .plugin(let name, let underlying) = error as? NetworkError,
                      case .notCached = underlying as? CachePlugin.Failure else { return false }
                return name == "CachePlugin" && "\(error)".contains("Nothing is cached")
            }
            #expect(server.hits("/feed") == 0)
        }
    }

    @Test func cacheOnlyNeverSendsAnUncacheableRequest() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/query")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            // A POST without the opt-in is never cached, so `.cache` can only miss.
            let target = CachedTarget(server, path: "/query", method: .post, task: .requestData(Data("x".utf8)),
                                      strategy: .cache)
            await #expect {
                _ = try await provider.request(target)
            } throws: { error in
                guard case .plugin(_, let underlying) = error as? NetworkError else { return false }
                return CachePlugin.Failure.isNotCached(underlying)
            }
            #expect(server.hits("/query") == 0)
        }
    }

    @Test func cacheAndServerSendsAnUncacheableRequestOnce() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/query")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/query", method: .post, task: .requestData(Data("x".utf8)))
            var texts: [String] = []
            for try await response in provider.requestCacheAndServer(target) { texts.append(response.text) }
            #expect(texts == ["response 1"])
            #expect(server.hits("/query") == 1)
        }
    }

    @Test func cacheIfPossibleAsksTheServerOnlyOnAMiss() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible)

            let first = try await provider.request(target)
            let second = try await provider.request(target)
            #expect(first.text == "response 1")
            #expect(first.cacheStatus == nil)
            #expect(second.text == "response 1")
            #expect(second.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
        }
    }

    @Test func thePerCallPolicyOverridesTheTarget() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible)
            _ = try await provider.request(target)
            #expect(try await provider.request(target, cachePolicy: .server).text == "response 2")
            #expect(try await provider.request(target, options: RequestOptions().cachePolicy(.server)).text == "response 3")
            #expect(server.hits("/feed") == 3)
        }
    }

    @Test func onlySuccessfulResponsesAreStoredUnlessConfigured() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/missing", status: 404)
            let target = CachedTarget(server, path: "/missing", strategy: .cacheIfPossible)

            let plain = Provider<CachedTarget>(plugins: [CachePlugin()])
            _ = try await plain.request(target)
            #expect(try await plain.request(target).text == "response 2")

            let configured = Provider<CachedTarget>(plugins: [CachePlugin(configuration: .init(storableStatusCodes: [200, 404]))])
            _ = try await configured.request(target)
            #expect(try await configured.request(target).text == "response 3")
            #expect(server.hits("/missing") == 3)
        }
    }

    @Test func entriesLiveAsLongAsTheTargetSays() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let clock = TestClock()
            let plugin = CachePlugin(configuration: .init(lifetime: 3_600, clock: clock.clock))
            let provider = Provider<CachedTarget>(plugins: [plugin])
            let target = CachedTarget(server, path: "/feed", strategy: .cacheIfPossible, lifetime: 60)
            _ = try await provider.request(target)
            clock.advance(by: 59)
            #expect(try await provider.request(target).text == "response 1")
            clock.advance(by: 1)
            #expect(try await provider.request(target).text == "response 2")
        }
    }

    // MARK: - cacheAndServer

    @Test func cacheAndServerYieldsTheServersResponseOnlyWhenNothingIsCached() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed")

            var first: [String] = []
            for try await response in provider.requestCacheAndServer(target) { first.append(response.text) }
            #expect(first == ["response 1"])

            var second: [(String, CacheStatus?)] = []
            for try await response in provider.requestCacheAndServer(target) {
                second.append((response.text, response.cacheStatus))
            }
            #expect(second.map(\.0) == ["response 1", "response 2"])
            #expect(second.map(\.1) == [.hit, nil])
            #expect(server.hits("/feed") == 2)

            // The stored entry now holds the server's latest answer.
            #expect(try await provider.request(target, cachePolicy: .cache).text == "response 2")
        }
    }

    @Test func cacheAndServerCallbackRunsOncePerResponse() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed")
            _ = try await provider.request(target)

            let received = Mutex<[String]>([])
            // The request's task releases the handler (and the sentinel it
            // holds) only when it is done, so a third callback would land
            // before the wait ends.
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                let sentinel = Sentinel { finished.resume() }
                provider.requestCacheAndServer(target) { result in
                    withExtendedLifetime(sentinel) {
                        received.withLock { $0.append((try? result.get().text) ?? "failure") }
                    }
                }
            }
            #expect(received.withLock { $0 } == ["response 1", "response 2"])
        }
    }

    @Test func cacheAndServerWithoutACachePluginFailsClearly() async throws {
        try await withServer { server in
            let provider = Provider<CachedTarget>()
            await #expect {
                for try await _ in provider.requestCacheAndServer(CachedTarget(server, path: "/echo")) {}
            } throws: { error in
                guard case .plugin(_, let underlying) = error as? NetworkError,
                      case .pluginMissing = underlying as? CachePlugin.Failure else { return false }
                return true
            }
            #expect(server.hits("/echo") == 0)
        }
    }
}

/// Calls `onRelease` when the last reference to it goes.
private final class Sentinel: Sendable {
    private let onRelease: @Sendable () -> Void

    init(_ onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    deinit {
        onRelease()
    }
}
