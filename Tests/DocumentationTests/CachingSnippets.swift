// The code of Core/Courier.docc/Caching.md.

import Courier
import CourierCache
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A product list whose responses the cache keeps for ten minutes.
struct Products: TargetType {
    let baseURL: URL
    var path: String { "/products" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
}

extension Products: CacheableTarget {
    var cacheStrategy: CacheStrategy? { .cacheIfPossible }
    var cacheLifetime: TimeInterval? { 10 * 60 }
}

/// A page in the language the request asks for.
struct LocalizedPage: TargetType {
    let baseURL: URL
    let language: String
    var path: String { "/page" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept-Language": language] }
    var validationType: ValidationType { .successCodes }
}

/// `path` answers "response 1", "response 2", … with `headers`.
private func routeCounting(_ path: String, on server: LoopbackServer, headers: [(name: String, value: String)] = []) {
    let counter = CallCounter()
    server.route(path) { _ in .text("response \(counter.next())", headers: headers) }
}

@Suite struct CachingSnippets {
    @Test func aStoredResponseIsServedFromTheCache() async throws {
        try await withServer { server in
            routeCounting("/feed", on: server)
            let feed = API(baseURL: server.baseURL, path: "/feed")
            let cache = CachePlugin(storage: MemoryResponseCache(), configuration: .init(lifetime: 600))
            let provider = Provider<API>(plugins: [cache])

            let first = try await provider.request(feed)                     // from the server; stored
            let again = try await provider.request(feed, cachePolicy: .cache) // from the cache; nothing sent
            print(again.cacheStatus == .hit)
            #expect(first.bodyText == "response 1")
            #expect(first.cacheStatus == nil)
            #expect(again.bodyText == "response 1")
            #expect(again.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
        }
    }

    @Test func aCacheableTargetChoosesItsStrategy() async throws {
        try await withServer { server in
            routeCounting("/products", on: server)
            let provider = Provider<Products>(plugins: [CachePlugin()])
            let first = try await provider.request(Products(baseURL: server.baseURL))
            let second = try await provider.request(Products(baseURL: server.baseURL))
            #expect(first.bodyText == "response 1")
            #expect(second.bodyText == "response 1")
            #expect(second.cacheStatus == .hit)
            #expect(server.hits("/products") == 1)
        }
    }

    @Test func cacheAndServerYieldsTheCachedCopyThenTheServers() async throws {
        try await withServer { server in
            routeCounting("/feed", on: server)
            let feed = API(baseURL: server.baseURL, path: "/feed")
            let provider = Provider<API>(plugins: [CachePlugin()])
            _ = try await provider.request(feed)
            var shown: [Response] = []
            for try await response in provider.requestCacheAndServer(feed) {
                shown.append(response) // the cached copy at once, then the server's
            }
            #expect(shown.map(\.bodyText) == ["response 1", "response 2"])
            #expect(shown.first?.cacheStatus == .hit)
            #expect(shown.last?.cacheStatus == nil)
        }
    }

    @Test func aCustomDecisionSendsOnlyWhenNothingIsCached() async throws {
        try await withServer { server in
            routeCounting("/feed", on: server)
            let feed = API(baseURL: server.baseURL, path: "/feed")
            let provider = Provider<API>(plugins: [CachePlugin()])
            for _ in 0..<2 {
                let decision = CacheDecision(
                    shouldSendRequest: { _, cached in cached == nil },
                    shouldUpdateCache: { _, response, _ in !response.data.isEmpty }
                )
                let response = try await provider.request(feed, cachePolicy: .custom(decision))
                #expect(response.bodyText == "response 1")
            }
            #expect(server.hits("/feed") == 1)
        }
    }

    @Test func aMissUnderCacheSendsNothing() async throws {
        try await withServer { server in
            routeCounting("/feed", on: server)
            let feed = API(baseURL: server.baseURL, path: "/feed")
            let provider = Provider<API>(plugins: [CachePlugin()])
            let missed = Box<Bool>()
            do throws(NetworkError) {
                let offline = try await provider.request(feed, cachePolicy: .cache)
                print(offline.data.count)
            } catch let error where CachePlugin.Failure.isNotCached(error) {
                print("Nothing is cached for this request yet")
                missed.set(true)
            } catch {
                print(error)
            }
            #expect(missed.value == true)
            #expect(server.hits("/feed") == 0)

            do throws(NetworkError) {
                let offline = try await provider.request(feed, cachePolicy: .cache)
                print(offline.data.count)
            } catch let error where CachePlugin.Failure.isNotCached(error) {
                print("Nothing is cached for this request yet")
            } catch {
                print(error)
            }
        }
    }

    @Test func a304RevalidatesTheStoredBody() async throws {
        try await withServer { server in
            let counter = CallCounter()
            server.route("/article") { request in
                let headers = [(name: "ETag", value: "\"v1\""), (name: "Cache-Control", value: "no-cache")]
                if request.header("If-None-Match") == "\"v1\"" { return LoopbackResponse(status: 304, headers: headers) }
                return .text("the article, version \(counter.next())", headers: headers)
            }
            let cache = CachePlugin(configuration: .init(
                defaultStrategy: .cacheIfPossible,
                lifetime: 24 * 60 * 60,
                httpSemantics: .standard
            ))
            let provider = Provider<API>(plugins: [cache])
            let article = API(baseURL: server.baseURL, path: "/article")
            let first = try await provider.request(article)
            let second = try await provider.request(article)
            #expect(first.bodyText == "the article, version 1")
            #expect(second.bodyText == "the article, version 1")
            #expect(second.statusCode == 200)
            #expect(second.cacheStatus == .revalidated)
            #expect(server.requests(to: "/article").last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func eachVariantHasItsOwnEntry() async throws {
        try await withServer { server in
            server.route("/page") { request in
                let text = request.header("Accept-Language") == "de" ? "Hallo" : "Hello"
                return .text(text, headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
            }
            let baseURL = server.baseURL
            let provider = Provider<LocalizedPage>(plugins: [CachePlugin(configuration: .init(
                defaultStrategy: .cacheIfPossible, lifetime: 3_600, httpSemantics: .standard
            ))])
            let german = try await provider.request(LocalizedPage(baseURL: baseURL, language: "de"))
            let english = try await provider.request(LocalizedPage(baseURL: baseURL, language: "en"))
            let germanAgain = try await provider.request(LocalizedPage(baseURL: baseURL, language: "de"))
            // germanAgain.cacheStatus == .hit; english came from the server
            #expect(german.bodyText == "Hallo")
            #expect(english.bodyText == "Hello")
            #expect(english.cacheStatus == nil)
            #expect(germanAgain.bodyText == "Hallo")
            #expect(germanAgain.cacheStatus == .hit)
            #expect(server.hits("/page") == 2)
        }
    }

    @Test func aDiskStoreOutlivesItsProvider() async throws {
        try await withServer { server in
            routeCounting("/feed", on: server)
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let cachesFolder = folder.url
            let feed = API(baseURL: server.baseURL, path: "/feed")
            do {
                let disk = try DiskResponseCache(directory: cachesFolder.appendingPathComponent("api"))
                let storage = TieredResponseCache(MemoryResponseCache(), over: disk)
                let provider = Provider<API>(plugins: [CachePlugin(storage: storage)])
                _ = try await provider.request(feed)
            }
            let reopened = Provider<API>(plugins: [
                CachePlugin(storage: try DiskResponseCache(directory: cachesFolder.appendingPathComponent("api"))),
            ])
            let cached = try await reopened.request(feed, cachePolicy: .cache)
            #expect(cached.bodyText == "response 1")
            #expect(cached.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
        }
    }
}
