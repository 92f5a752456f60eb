import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CachePlugin.HTTPSemantics`: Cache-Control, validators and the stale
/// extensions, against a real server and an injected clock.
@Suite struct HTTPSemanticsTests {
    private func makeProvider(
        _ clock: TestClock,
        storage: any ResponseCaching = MemoryResponseCache(),
        semantics: CachePlugin.HTTPSemantics = .standard,
        transport: any Transport = URLSessionTransport.shared,
        onBackgroundRefresh: (@Sendable (Result<Response, NetworkError>) -> Void)? = nil
    ) -> (Provider<CachedTarget>, CachePlugin) {
        let plugin = CachePlugin(storage: storage, configuration: .init(
            defaultStrategy: .cacheIfPossible, lifetime: 3_600, httpSemantics: semantics,
            clock: clock.clock, onBackgroundRefresh: onBackgroundRefresh
        ))
        return (Provider<CachedTarget>(transport: transport, plugins: [plugin]), plugin)
    }

    /// A route answering 304 when the request's validator matches, else 200
    /// with the hit count in the body.
    private func installValidated(on server: LoopbackServer, path: String, headers: [(name: String, value: String)],
                                  matches: @escaping @Sendable (RecordedRequest) -> Bool) {
        let counter = Counter()
        server.route(path) { request in
            let value = counter.next()
            if matches(request) { return LoopbackResponse(status: 304, headers: headers) }
            return .text("body \(value)", headers: headers)
        }
    }

    @Test func aFreshMaxAgeEntryIsServedWithoutARequest() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/fresh", headers: [("Cache-Control", "max-age=60")])
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            let target = CachedTarget(server, path: "/fresh")

            _ = try await provider.request(target)
            clock.advance(by: 59)
            let cached = try await provider.request(target)
            #expect(cached.text == "response 1")
            #expect(cached.cacheStatus == .hit)
            #expect(server.hits("/fresh") == 1)

            clock.advance(by: 2)
            #expect(try await provider.request(target).text == "response 2")
            #expect(server.hits("/fresh") == 2)
        }
    }

    @Test func noStoreIsNeverWritten() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/secret", headers: [("Cache-Control", "no-store")])
            let storage = MemoryResponseCache()
            let (provider, _) = makeProvider(TestClock(), storage: storage)
            let target = CachedTarget(server, path: "/secret")

            _ = try await provider.request(target)
            #expect(storage.count == 0)
            #expect(try await provider.request(target).text == "response 2")
            #expect(server.hits("/secret") == 2)
        }
    }

    @Test func aNoStoreAnswerDropsTheEntryStoredBefore() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/changed") { _ in
                let value = counter.next()
                return .text("response \(value)", headers: [("Cache-Control", value == 1 ? "max-age=60" : "no-store")])
            }
            let storage = MemoryResponseCache()
            let (provider, _) = makeProvider(TestClock(), storage: storage)
            let target = CachedTarget(server, path: "/changed")
            _ = try await provider.request(target)
            #expect(storage.count == 1)
            _ = try await provider.request(target, cachePolicy: .server)
            #expect(storage.count == 0)
            await #expect(throws: NetworkError.self) { try await provider.request(target, cachePolicy: .cache) }
        }
    }

    @Test func anETagRevalidationAnswered304GivesTheCachedBody() async throws {
        try await withServer { server in
            installValidated(on: server, path: "/etag", headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")]) {
                $0.header("If-None-Match") == "\"v1\""
            }
            let (provider, _) = makeProvider(TestClock())
            let target = CachedTarget(server, path: "/etag")

            let first = try await provider.request(target)
            let second = try await provider.request(target)

            #expect(first.text == "body 1")
            #expect(second.text == "body 1")
            #expect(second.statusCode == 200)
            #expect(second.cacheStatus == .revalidated)
            #expect(server.hits("/etag") == 2)
            #expect(server.requests(to: "/etag").last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func aLastModifiedRevalidationRefreshesTheEntry() async throws {
        try await withServer { server in
            let lastModified = "Wed, 21 Oct 2026 07:28:00 GMT"
            installValidated(on: server, path: "/dated",
                             headers: [("Last-Modified", lastModified), ("Cache-Control", "max-age=10")]) {
                $0.header("If-Modified-Since") == lastModified
            }
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            let target = CachedTarget(server, path: "/dated")

            _ = try await provider.request(target)
            clock.advance(by: 11)
            let revalidated = try await provider.request(target)
            #expect(revalidated.text == "body 1")
            #expect(revalidated.statusCode == 200)
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(server.hits("/dated") == 2)

            // The 304 made the entry fresh again for another max-age.
            clock.advance(by: 9)
            #expect(try await provider.request(target).cacheStatus == .hit)
            #expect(server.hits("/dated") == 2)
        }
    }

    @Test func mustRevalidateIsRevalidatedBeforeUse() async throws {
        try await withServer { server in
            installValidated(on: server, path: "/strict", headers: [("ETag", "\"s\""), ("Cache-Control", "must-revalidate")]) {
                $0.header("If-None-Match") == "\"s\""
            }
            let (provider, _) = makeProvider(TestClock())
            let target = CachedTarget(server, path: "/strict")
            _ = try await provider.request(target)
            #expect(try await provider.request(target).cacheStatus == .revalidated)
            #expect(server.hits("/strict") == 2)
        }
    }

    @Test func staleIfErrorServesTheStaleEntryWhenTheServerIsGone() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/resilient", headers: [("Cache-Control", "max-age=1, stale-if-error=600")])
            installCounter(on: server, path: "/fragile", headers: [("Cache-Control", "max-age=1")])
            let clock = TestClock()
            // The server keeps running (a stopped one's port may be reused by
            // a parallel test); the transport plays the unreachable host.
            let transport = UnplugableTransport()
            let (provider, _) = makeProvider(clock, transport: transport)
            let resilient = CachedTarget(server, path: "/resilient")
            let fragile = CachedTarget(server, path: "/fragile")
            _ = try await provider.request(resilient)
            _ = try await provider.request(fragile)
            clock.advance(by: 5)
            transport.unplug()

            let stale = try await provider.request(resilient)
            #expect(stale.text == "response 1")
            #expect(stale.cacheStatus == .stale)
            await #expect(throws: NetworkError.self) { try await provider.request(fragile) }

            clock.advance(by: 600)
            await #expect(throws: NetworkError.self) { try await provider.request(resilient) }
            #expect(server.hits("/resilient") == 1)
        }
    }

    @Test func staleIfErrorServesTheStaleEntryOnA5xx() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/flaky") { _ in
                let value = counter.next()
                if value > 1 { return .text("down", status: 503) }
                return .text("up", headers: [("Cache-Control", "max-age=1, stale-if-error=60")])
            }
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            _ = try await provider.request(CachedTarget(server, path: "/flaky"))
            clock.advance(by: 2)
            let stale = try await provider.request(CachedTarget(server, path: "/flaky"))
            #expect(stale.text == "up")
            #expect(stale.cacheStatus == .stale)
            #expect(server.hits("/flaky") == 2)
        }
    }

    @Test func varyKeepsTwoEntriesApart() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/greeting") { request in
                let value = counter.next()
                let language = request.header("Accept-Language") ?? "none"
                return .text("\(language) \(value)", headers: [("Vary", "Accept-Language"), ("Cache-Control", "max-age=60")])
            }
            let (provider, _) = makeProvider(TestClock())
            let english = CachedTarget(server, path: "/greeting", headers: ["Accept-Language": "en"])
            let french = CachedTarget(server, path: "/greeting", headers: ["Accept-Language": "fr"])

            var answers: [String] = []
            for target in [english, french, english, french] {
                answers.append(try await provider.request(target).text)
            }
            #expect(answers == ["en 1", "fr 2", "en 1", "fr 2"])
            #expect(server.hits("/greeting") == 2)
        }
    }

    @Test func staleWhileRevalidateServesStaleAndRefreshesInTheBackground() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/swr", headers: [("Cache-Control", "max-age=1, stale-while-revalidate=60")])
            let clock = TestClock()
            let refreshed = Mutex<[String]>([])
            let (provider, plugin) = makeProvider(clock) { result in
                refreshed.withLock { $0.append((try? result.get().text) ?? "failure") }
            }
            let target = CachedTarget(server, path: "/swr")
            _ = try await provider.request(target)
            clock.advance(by: 5)

            let stale = try await provider.request(target, cachePolicy: .cacheIfPossible)
            #expect(stale.text == "response 1")
            #expect(stale.cacheStatus == .stale)
            await plugin.waitForBackgroundRefreshes()

            #expect(refreshed.withLock { $0 } == ["response 2"])
            #expect(server.hits("/swr") == 2)
            let fresh = try await provider.request(target)
            #expect(fresh.text == "response 2")
            #expect(fresh.cacheStatus == .hit)
        }
    }

    @Test func aSharedCacheDoesNotStorePrivateResponses() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/mine", headers: [("Cache-Control", "private, max-age=60")])
            let shared = MemoryResponseCache()
            let (sharedProvider, _) = makeProvider(TestClock(), storage: shared, semantics: .init(isShared: true))
            _ = try await sharedProvider.request(CachedTarget(server, path: "/mine"))
            #expect(shared.count == 0)

            let personal = MemoryResponseCache()
            let (personalProvider, _) = makeProvider(TestClock(), storage: personal)
            _ = try await personalProvider.request(CachedTarget(server, path: "/mine"))
            #expect(personal.count == 1)
        }
    }

    // MARK: - Age, expiry, parsing, eviction

    @Test func a304WithoutAgeDropsTheStoredAge() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/aged") { request in
                if counter.next() == 1 {
                    return .text("body", headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60"), ("Age", "50")])
                }
                return LoopbackResponse(status: request.header("If-None-Match") == "\"v1\"" ? 304 : 500)
            }
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            let target = CachedTarget(server, path: "/aged")
            _ = try await provider.request(target)
            clock.advance(by: 11) // 61 s old: stale
            #expect(try await provider.request(target).cacheStatus == .revalidated)
            clock.advance(by: 30) // 30 s since the 304, which said nothing of age: fresh
            let again = try await provider.request(target)
            #expect(again.cacheStatus == .hit)
            #expect(server.hits("/aged") == 2)
        }
    }

    @Test func staleIfErrorOutlivesTheConfiguredLifetimeWhenAllowed() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/kept") { _ in
                counter.next() == 1 ? .text("up", headers: [("Cache-Control", "max-age=1, stale-if-error=600")]) : .text("down", status: 503)
            }
            let clock = TestClock()
            let (provider, _) = makeProvider(clock, semantics: .init(extendsLifetime: true))
            var target = CachedTarget(server, path: "/kept")
            target.cacheLifetime = 10
            _ = try await provider.request(target)
            clock.advance(by: 300) // past the lifetime, inside the stale-if-error window
            let stale = try await provider.request(target)
            #expect(stale.text == "up")
            #expect(stale.cacheStatus == .stale)
        }
    }

    @Test func anEntryWithValidatorsIsKeptForRevalidationUntilTheLifetimeEnds() async throws {
        try await withServer { server in
            installValidated(on: server, path: "/validated", headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=1")]) {
                $0.header("If-None-Match") == "\"v1\""
            }
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            var target = CachedTarget(server, path: "/validated")
            target.cacheLifetime = 100
            _ = try await provider.request(target)
            clock.advance(by: 90)
            #expect(try await provider.request(target).cacheStatus == .revalidated)
            #expect(server.requests(to: "/validated").last?.header("If-None-Match") == "\"v1\"")
        }
    }

    // An invalid max-age is stale at once; an invalid Age is ignored, so
    // max-age=60 lasts 60 s (not 160 for Age -100, nor 50 for Age 1e1).
    @Test(arguments: [
        ("max-age=1e9", nil, 1, "response 2"), ("max-age=+60", nil, 1, "response 2"), ("max-age=60.5", nil, 1, "response 2"),
        ("max-age=60", "-100", 61, "response 2"), ("max-age=60", "1e1", 55, "response 1"),
    ] as [(String, String?, TimeInterval, String)])
    func onlyPlainDigitsCountAsSeconds(_ example: (cacheControl: String, age: String?, advance: TimeInterval, expected: String)) async throws {
        let (cacheControl, age, advance, expected) = example
        try await withServer { server in
            var headers: [(name: String, value: String)] = [("Cache-Control", cacheControl)]
            if let age { headers.append(("Age", age)) }
            installCounter(on: server, path: "/numbers", headers: headers)
            let clock = TestClock()
            let (provider, _) = makeProvider(clock)
            let target = CachedTarget(server, path: "/numbers")
            _ = try await provider.request(target)
            clock.advance(by: advance)
            #expect(try await provider.request(target).text == expected)
        }
    }

    @Test(arguments: [("Cache-Control", "no-store"), ("Vary", "*")])
    func anUncacheableAnswerRemovesTheEntryAndItsVariants(name: String, value: String) async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/lang") { _ in
                let count = counter.next()
                let headers: [(name: String, value: String)] =
                    count <= 2 ? [("Vary", "Accept-Language"), ("Cache-Control", "max-age=60")] : [(name, value)]
                return .text("response \(count)", headers: headers)
            }
            let storage = MemoryResponseCache()
            let (provider, _) = makeProvider(TestClock(), storage: storage)
            let english = CachedTarget(server, path: "/lang", headers: ["Accept-Language": "en"])
            let french = CachedTarget(server, path: "/lang", headers: ["Accept-Language": "fr"])
            _ = try await provider.request(english)
            _ = try await provider.request(french)
            #expect(storage.count > 0)
            _ = try await provider.request(english, cachePolicy: .server)
            #expect(storage.count == 0)
            await #expect(throws: NetworkError.self) { try await provider.request(french, cachePolicy: .cache) }
        }
    }
}

/// Sends through URLSession until unplugged, then fails every request as a
/// host that refuses connections.
private final class UnplugableTransport: Transport {
    private let isUnplugged = Mutex(false)

    func unplug() {
        isUnplugged.withLock { $0 = true }
    }

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        if isUnplugged.withLock({ $0 }) { throw NetworkError(transportError: URLError(.cannotConnectToHost)) }
        return try await URLSessionTransport.shared.send(request)
    }
}
