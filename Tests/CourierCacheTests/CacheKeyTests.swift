import Courier
import CourierCache
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct CacheKeyTests {
    @Test func twoGETsDifferingOnlyInTheQueryNeverShareAnEntry() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/search")
            let provider = Provider<TestTarget>(plugins: [CachePlugin()])
            let first = TestTarget(server.baseURL, path: "/search", task: .requestParameters(parameters: ["q": "swift"], encoding: URLEncoding.queryString))
            let second = TestTarget(server.baseURL, path: "/search", task: .requestParameters(parameters: ["q": "rust"], encoding: URLEncoding.queryString))

            let a = try await provider.request(first, cachePolicy: .cacheIfPossible)
            let b = try await provider.request(second, cachePolicy: .cacheIfPossible)
            let again = try await provider.request(first, cachePolicy: .cacheIfPossible)

            #expect(a.text == "response 1")
            #expect(b.text == "response 2")
            #expect(again.text == "response 1")
            #expect(again.cacheStatus == .hit)
            #expect(server.hits("/search") == 2)
        }
    }

    @Test func twoPOSTsWithDifferentBodiesNeverShareAnEntry() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/query")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            func post(_ body: String) -> CachedTarget {
                var target = CachedTarget(server, path: "/query", method: .post, task: .requestData(Data(body.utf8)),
                                          strategy: .cacheIfPossible)
                target.cachesRequestsWithBody = true
                return target
            }
            let a = try await provider.request(post("one"))
            let b = try await provider.request(post("two"))
            let aAgain = try await provider.request(post("one"))
            let bAgain = try await provider.request(post("two"))

            #expect([a.text, b.text] == ["response 1", "response 2"])
            #expect([aAgain.text, bAgain.text] == ["response 1", "response 2"])
            #expect(server.hits("/query") == 2)
        }
    }

    @Test func aPOSTIsNotCachedUnlessTheTargetOptsIn() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/query")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/query", method: .post, task: .requestData(Data("x".utf8)),
                                      strategy: .cacheIfPossible)
            _ = try await provider.request(target)
            let second = try await provider.request(target)
            #expect(second.text == "response 2")
            #expect(server.hits("/query") == 2)
        }
    }

    @Test func keyExtrasKeepEntriesApart() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/profile")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            var alice = CachedTarget(server, path: "/profile", strategy: .cacheIfPossible)
            alice.cacheKeyExtras = ["user=alice"]
            var bob = alice
            bob.cacheKeyExtras = ["user=bob"]

            let first = try await provider.request(alice)
            let other = try await provider.request(bob)
            let again = try await provider.request(alice)
            #expect([first.text, other.text, again.text] == ["response 1", "response 2", "response 1"])
        }
    }

    @Test func keysSeparateMethodURLAndBody() throws {
        let url = try #require(URL(string: "https://example.com/a?x=1"))
        let target = TestTarget(url)
        var get = URLRequest(url: url)
        get.httpMethod = "GET"
        var head = get
        head.httpMethod = "HEAD"
        var postOne = get
        postOne.httpMethod = "POST"
        postOne.httpBody = Data("1".utf8)
        var postTwo = postOne
        postTwo.httpBody = Data("2".utf8)
        var other = get
        other.url = URL(string: "https://example.com/a?x=2")

        let keys = [get, head, postOne, postTwo, other].compactMap { CacheKey.make(for: $0, target: target)?.base }
        #expect(Set(keys).count == 5)
        #expect(CacheKey.make(for: get, target: target) == CacheKey.make(for: get, target: target))
    }
}

@Suite struct CacheKeyIdentityTests {
    @Test func twoUsersNeverShareAnEntryAndNoTokenIsWrittenToDisk() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/me", headers: [("Set-Cookie", "session=secret-cookie")])
            try await withTemporaryDirectory { directory in
                let provider = Provider<CachedTarget>(plugins: [CachePlugin(storage: try DiskResponseCache(directory: directory.url))])
                let alice = CachedTarget(server, path: "/me", headers: ["Authorization": "Bearer alice-token"], strategy: .cacheIfPossible)
                let bob = CachedTarget(server, path: "/me", headers: ["Authorization": "Bearer bob-token"], strategy: .cacheIfPossible)

                let answers = [
                    try await provider.request(alice).text, try await provider.request(bob).text,
                    try await provider.request(alice).text,
                ]
                #expect(answers == ["response 1", "response 2", "response 1"])

                let files = try directory.cacheFiles.map { try Data(contentsOf: $0) }
                #expect(files.count == 2)
                for file in files {
                    let text = String(decoding: file, as: UTF8.self)
                    #expect(!text.contains("alice-token") && !text.contains("bob-token"))
                    #expect(!text.contains("secret-cookie"))
                }
            }
        }
    }

    @Test func varyOnAuthorizationAndCookieWritesNoSecretToDisk() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/varied", headers: [("Vary", "Authorization, Cookie")])
            try await withTemporaryDirectory { directory in
                let provider = Provider<CachedTarget>(plugins: [CachePlugin(storage: try DiskResponseCache(directory: directory.url))])
                func target(cookie: String) -> CachedTarget {
                    CachedTarget(server, path: "/varied", headers: ["Authorization": "Bearer vary-token", "Cookie": cookie],
                                 strategy: .cacheIfPossible)
                }
                let answers = [
                    try await provider.request(target(cookie: "session=vary-cookie")).text,
                    try await provider.request(target(cookie: "session=vary-cookie")).text,
                    try await provider.request(target(cookie: "session=other-cookie")).text,
                ]
                // Digests still tell the same values from different ones.
                #expect(answers == ["response 1", "response 1", "response 2"])

                let files = try directory.cacheFiles.map { try Data(contentsOf: $0) }
                #expect(!files.isEmpty)
                // Nor the plain SHA-256 of a value, which a copy of the files
                // could test guesses against.
                let guessable = ["Bearer vary-token", "session=vary-cookie", "session=other-cookie"].map {
                    SHA256.hex(Data($0.utf8))
                }
                for file in files {
                    let text = String(decoding: file, as: UTF8.self)
                    #expect(!text.contains("vary-token"))
                    #expect(!text.contains("vary-cookie") && !text.contains("other-cookie"))
                    #expect(guessable.allSatisfy { !text.contains($0) })
                }
            }
        }
    }

    /// `Vary: Cookie` on a request without a `Cookie` field: the transport
    /// may add cookies from its own store after the plugins ran (URLSession
    /// does), so the answer is not stored, or it would be served whatever
    /// cookies the next call carries. A request that says it handles no
    /// cookies has all its cookies in sight, and is cached.
    @Test func aVaryOnCookiesThePluginCannotSeeIsNotStored() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/by-cookie", headers: [("Vary", "Cookie")])
            let target = CachedTarget(server, path: "/by-cookie", strategy: .cacheIfPossible)
            let unseen = Provider<CachedTarget>(plugins: [CachePlugin()])
            let first = try await unseen.request(target).text
            let second = try await unseen.request(target).text
            #expect([first, second] == ["response 1", "response 2"])

            let withoutCookies = Provider<CachedTarget>(plugins: [CookiesOff(), CachePlugin()])
            let third = try await withoutCookies.request(target).text
            let fourth = try await withoutCookies.request(target).text
            #expect([third, fourth] == ["response 3", "response 3"])
        }
    }

    /// Tells the transport to add no cookies of its own.
    private struct CookiesOff: Plugin {
        func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
            var request = request
            request.httpShouldHandleCookies = false
            return request
        }
    }

    @Test func aSetCookieOnA304IsNotStored() async throws {
        try await withServer { server in
            let counter = Counter()
            server.route("/validated") { _ in
                if counter.next() == 1 { return .text("body", headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")]) }
                return LoopbackResponse(status: 304, headers: [("ETag", "\"v1\""), ("Set-Cookie", "session=from-304")])
            }
            try await withTemporaryDirectory { directory in
                let plugin = CachePlugin(storage: try DiskResponseCache(directory: directory.url),
                                         configuration: .init(httpSemantics: .standard))
                let provider = Provider<CachedTarget>(plugins: [plugin])
                let target = CachedTarget(server, path: "/validated", strategy: .cacheIfPossible)
                _ = try await provider.request(target)
                #expect(try await provider.request(target).cacheStatus == .revalidated)
                #expect(server.hits("/validated") == 2)

                let stored = try await provider.request(target, cachePolicy: .cache)
                #expect(stored.value(forHTTPHeaderField: "Set-Cookie") == nil)
                let files = try directory.cacheFiles.map { try Data(contentsOf: $0) }
                #expect(files.count == 1)
                #expect(files.allSatisfy { !String(decoding: $0, as: UTF8.self).contains("from-304") })
            }
        }
    }
}
