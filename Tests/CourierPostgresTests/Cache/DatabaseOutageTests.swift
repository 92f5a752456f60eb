import Courier
import CourierCache
import CourierFleetSupport
import CourierLoopback
import CourierPostgres
import Foundation
import Testing

/// PostgreSQL stopped in the middle of a run, then started again.
extension PostgresTests {
    @Suite
    struct DatabaseOutageTests {
        @Test func callsSucceedFromTheNetworkWhileTheDatabaseIsAwayAndTheCacheComesBack() async throws {
            try await withTemporaryPostgres { postgres in
                let server = try await LoopbackServer.start()
                defer { Task { await server.shutdown() } }
                try await withStorage(postgres) { storage in
                    try await storage.prepare()
                    let cache = PostgresResponseCache(
                        storage: storage, configuration: .init(timeout: .milliseconds(100), retryInterval: .milliseconds(500))
                    )
                    let provider = Provider<OutageAPI>(plugins: [
                        CachePlugin(storage: cache, configuration: .init(defaultStrategy: .cacheIfPossible, lifetime: 600)),
                    ])
                    var baseline: [TimeInterval] = []
                    for index in 0..<10 {
                        let started = Date()
                        _ = try await provider.request(OutageAPI(server: server.baseURL, index: index))
                        baseline.append(Date().timeIntervalSince(started))
                    }
                    await cache.waitForPendingWrites()
                    _ = try await provider.request(OutageAPI(server: server.baseURL, index: 0))
                    #expect(server.hits(prefix: "/bytes") == 10)  // the eleventh was a hit

                    try await postgres.stopped()
                    var during: [TimeInterval] = []
                    for index in 10..<30 {
                        let started = Date()
                        let response = try await provider.request(OutageAPI(server: server.baseURL, index: index))
                        during.append(Date().timeIntervalSince(started))
                        #expect(response.statusCode == 200)
                    }
                    #expect(server.hits(prefix: "/bytes") == 30)  // every call a miss, none an error
                    // Against the typical call before (the first one also set up
                    // the HTTP client): the cache's time-out is 0.1 s.
                    let typical = baseline.sorted()[baseline.count / 2]
                    let extra = (during.max() ?? 0) - typical
                    print("database away: slowest call \(String(format: "%.3f", during.max() ?? 0)) s, "
                          + "typical before \(String(format: "%.3f", typical)) s, extra \(String(format: "%.3f", extra)) s")
                    #expect(extra < 0.5)

                    try await postgres.restarted()
                    // The same cache, with no restart: stores and hits again once
                    // the pool has reconnected.
                    var index = 100
                    let recovered = try await eventually(within: 60) {
                        index += 1
                        let target = OutageAPI(server: server.baseURL, index: index)
                        _ = try await provider.request(target)
                        await cache.waitForPendingWrites()
                        let before = server.hits(prefix: "/bytes")
                        _ = try await provider.request(target)
                        return server.hits(prefix: "/bytes") == before
                    }
                    #expect(recovered)
                }
            }
        }
    }
}

struct OutageAPI: TargetType {
    let server: URL
    let index: Int
    var baseURL: URL { server }
    var path: String { "/bytes/64" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestParameters(parameters: ["seed": index], encoding: URLEncoding.queryString) }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
}
