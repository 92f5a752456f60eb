import Courier
import CourierAuth
import CourierCache
import CourierGzip
import CourierLogging
import CourierRetry
import CourierTestSupport
import Foundation
import Logging
import Testing

/// Every shipped plugin in one provider. Whatever order a user lists them
/// in, one user's cached answers never reach another user.
@Suite struct ShippedPluginsTests {
    struct Me: TargetType, AccessTokenAuthorizable {
        let baseURL: URL
        var path: String { "/me" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .successCodes }
        var authorizationType: AuthorizationType? { .bearer }
    }

    enum Kind: CaseIterable { case logging, auth, gzip, retry, cache }

    /// The five plugins in `order`, with the cache on `storage`.
    private static func plugins(_ order: [Kind], store: InMemoryCredentialStore, storage: any ResponseCaching) -> [any Plugin] {
        var logger = Logger(label: "courier.integration") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .debug
        return order.map { kind -> any Plugin in
            switch kind {
            case .logging: LoggingPlugin(.init(logger: logger))
            case .auth: AuthPlugin(store: store) { _ in throw AuthPlugin.RefreshRefused(reason: "no refresh in this test") }
            case .gzip: GzipPlugin()
            case .retry: RetryPlugin()
            case .cache: CachePlugin(storage: storage, configuration: .init(lifetime: 3_600))
            }
        }
    }

    /// Every order of the five plugins: 120.
    private static var orders: [[Kind]] {
        func permutations(_ items: [Kind]) -> [[Kind]] {
            guard items.count > 1 else { return [items] }
            return items.indices.flatMap { index -> [[Kind]] in
                var rest = items
                let first = rest.remove(at: index)
                return permutations(rest).map { [first] + $0 }
            }
        }
        return permutations(Kind.allCases)
    }

    /// Signs in as A, reads `/me` into the cache, signs in as B and reads it
    /// again under `strategy`: B must get B's answer.
    private static func secondUserSees(
        order: [Kind], strategy: CacheStrategy, storage: any ResponseCaching, server: LoopbackServer
    ) async throws -> String {
        let store = InMemoryCredentialStore(Credential(accessToken: "token-A"))
        let provider = Provider<Me>(plugins: plugins(order, store: store, storage: storage))
        let first = try await provider.request(Me(baseURL: server.baseURL), options: RequestOptions().cachePolicy(.cacheIfPossible))
        #expect(String(decoding: first.data, as: UTF8.self) == "user A")
        store.clear()
        store.save(Credential(accessToken: "token-B"))
        do throws(NetworkError) {
            let second = try await provider.request(Me(baseURL: server.baseURL), options: RequestOptions().cachePolicy(strategy))
            return String(decoding: second.data, as: UTF8.self)
        } catch {
            // `.cache` with nothing cached for B: a miss, never A's answer.
            return "miss"
        }
    }

    private static func routeMe(on server: LoopbackServer) {
        server.route("/me") { request in
            switch request.header("Authorization") {
            case "Bearer token-A": .text("user A")
            case "Bearer token-B": .text("user B")
            default: .text("who are you?", status: 401)
            }
        }
    }

    @Test func inEveryOrderAMemoryCacheNeverServesOneUserToAnother() async throws {
        try await withServer { server in
            Self.routeMe(on: server)
            for order in Self.orders {
                let ifPossible = try await Self.secondUserSees(order: order, strategy: .cacheIfPossible, storage: MemoryResponseCache(),
                                                               server: server)
                #expect(ifPossible == "user B", "\(order)")
                let cacheOnly = try await Self.secondUserSees(order: order, strategy: .cache, storage: MemoryResponseCache(), server: server)
                #expect(cacheOnly == "miss", "\(order)")
            }
        }
    }

    @Test func diskEntriesOfOneUserAreNeverServedToTheNext() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            Self.routeMe(on: server)
            // The order each plugin's documentation used to recommend, and its reverse.
            for order in [[Kind.cache, .auth, .retry, .gzip, .logging], [.logging, .gzip, .retry, .auth, .cache]] {
                let name = order.map { "\($0)" }.joined(separator: "-")
                let ifPossible = try DiskResponseCache(directory: directory.file("if-possible-" + name))
                let cacheOnly = try DiskResponseCache(directory: directory.file("cache-only-" + name))
                #expect(try await Self.secondUserSees(order: order, strategy: .cacheIfPossible, storage: ifPossible, server: server) == "user B")
                #expect(try await Self.secondUserSees(order: order, strategy: .cache, storage: cacheOnly, server: server) == "miss")
            }
        }
    }

    @Test func theRecommendedOrderWorksTogether() async throws {
        try await withServer { server in
            Self.routeMe(on: server)
            let store = InMemoryCredentialStore(Credential(accessToken: "token-A"))
            // The order the README and `Plugin`'s documentation recommend.
            let provider = Provider<Me>(plugins: Self.plugins([.logging, .auth, .retry, .cache, .gzip], store: store, storage: MemoryResponseCache()))
            let first = try await provider.request(Me(baseURL: server.baseURL), options: RequestOptions().cachePolicy(.cacheIfPossible))
            let cached = try await provider.request(Me(baseURL: server.baseURL), options: RequestOptions().cachePolicy(.cache))
            #expect(first.data == cached.data)
            #expect(server.hits("/me") == 1)
        }
    }
}
