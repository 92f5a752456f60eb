import Courier
import CourierCache
import CourierLoopback
import Foundation

/// The demo API's cached route: answers with how many times it was hit, so
/// the walk-through shows which answers came from the server.
private struct NewsTarget: CacheableTarget {
    let baseURL: URL
    var path: String { "/cache/news" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
}

/// The five cache strategies, then HTTP revalidation, against `/cache/news`.
func runCacheSection(_ demo: DemoContext) async {
    demo.section("Cache: five strategies, one hit counter")
    installCacheRoutes(on: demo.server)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = "/cache/news"

    await demo.attempt("cache demo") {
        let store = TieredResponseCache(MemoryResponseCache(), over: try DiskResponseCache(directory: directory))
        let provider = Provider<NewsTarget>(plugins: [CachePlugin(storage: store)])
        let news = NewsTarget(baseURL: demo.baseURL)
        func show(_ label: String, _ response: Response) {
            let source = response.cacheStatus.map { "cache (\($0.rawValue))" } ?? "server"
            demo.say("\(label): \"\(String(decoding: response.data, as: UTF8.self))\" from \(source); \(demo.serverHits(path))")
        }

        await demo.attempt(".cache on an empty cache") {
            _ = try await provider.request(news, cachePolicy: .cache)
        }
        demo.say("(nothing was sent: \(demo.serverHits(path)))")
        show(".server", try await provider.request(news, cachePolicy: .server))
        show(".cache", try await provider.request(news, cachePolicy: .cache))
        show(".cacheIfPossible", try await provider.request(news, cachePolicy: .cacheIfPossible))
        // The stream sends the server leg while the cached answer is shown,
        // so the hit count is printed once both have arrived.
        var responses: [Response] = []
        for try await response in provider.requestCacheAndServer(news) {
            responses.append(response)
        }
        for (index, response) in responses.enumerated() {
            let source = response.cacheStatus.map { "cache (\($0.rawValue))" } ?? "server"
            demo.say(".cacheAndServer #\(index + 1): \"\(String(decoding: response.data, as: UTF8.self))\" from \(source)")
        }
        demo.say("(after both: \(demo.serverHits(path)))")
        let onlyWhenEmpty = CacheDecision(
            shouldSendRequest: { _, cached in cached == nil },
            shouldUpdateCache: { _, response, _ in !response.data.isEmpty }
        )
        show(".custom (send only when nothing is cached)", try await provider.request(news, cachePolicy: .custom(onlyWhenEmpty)))

        let reopened = Provider<NewsTarget>(plugins: [CachePlugin(storage: try DiskResponseCache(directory: directory))])
        show("a new provider on the same directory, .cache", try await reopened.request(news, cachePolicy: .cache))
    }

    demo.section("Cache: HTTP semantics (ETag and 304)")
    await demo.attempt("revalidation demo") {
        let semantics = CachePlugin(configuration: .init(defaultStrategy: .cacheIfPossible, httpSemantics: .standard))
        let provider = Provider<MultiTarget>(plugins: [semantics])
        let target = MultiTarget(ETagTarget(baseURL: demo.baseURL))
        for label in ["first call", "second call (If-None-Match sent)"] {
            let response = try await provider.request(target)
            let source = response.cacheStatus.map { "cache (\($0.rawValue))" } ?? "server"
            demo.say("\(label): status \(response.statusCode), \(response.data.count) bytes from \(source); "
                     + demo.serverHits("/cache/etag"))
        }
    }
}

private struct ETagTarget: TargetType {
    let baseURL: URL
    var path: String { "/cache/etag" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

private func installCacheRoutes(on server: LoopbackServer?) {
    guard let server else { return }
    let hits = CacheDemoCounter()
    server.route("/cache/news") { _ in .text("headline #\(hits.next())") }
    server.route("/cache/etag") { request in
        let headers = [("ETag", "\"news-v1\""), ("Cache-Control", "no-cache")]
        if request.header("If-None-Match") == "\"news-v1\"" { return LoopbackResponse(status: 304, headers: headers) }
        return .text("the same long article", headers: headers)
    }
}

private final class CacheDemoCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}
