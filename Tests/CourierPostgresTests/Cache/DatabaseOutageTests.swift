import Courier
import CourierCache
import CourierFleetSupport
import CourierLoopback
import CourierPostgres
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
                    // A time-out far past what a lookup takes however loaded
                    // the machine (under the thread sanitizer in a full run a
                    // whole call took a second, and at 2 s the eleventh call
                    // missed): the hits below count lookups, not speed. While
                    // the database is stopped a lookup fails at once, refused,
                    // so no call waits for it; the rest is long enough that
                    // the outage costs it once.
                    let cache = PostgresResponseCache(
                        storage: storage, configuration: .init(timeout: .seconds(20), retryInterval: .seconds(5))
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
                    // For whoever reads the log; how long the cache may make a call
                    // wait is asserted by the silent-database test below, which
                    // would hang without the time-out, not by a clock here.
                    let typical = baseline.sorted()[baseline.count / 2]
                    print("database away: slowest call \(String(format: "%.3f", during.max() ?? 0)) s, "
                          + "typical before \(String(format: "%.3f", typical)) s")

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

extension PostgresTests.DatabaseOutageTests {
    /// A database that accepts the connection and never answers (a stopped
    /// process, a black-holed route): without the read time-out the first
    /// call would wait for ever.
    @Test func callsSucceedFromTheNetworkWhenTheDatabaseAcceptsAndNeverAnswers() async throws {
        let database = try SilentSocket()
        defer { database.close() }
        let server = try await LoopbackServer.start()
        defer { Task { await server.shutdown() } }
        let storage = try PostgresStorage(connectionString: database.connectionString, maximumConnections: 2)
        let pool = Task { await storage.run() }
        defer { pool.cancel() }
        let cache = PostgresResponseCache(
            storage: storage, configuration: .init(timeout: .milliseconds(100), retryInterval: .milliseconds(200))
        )
        let provider = Provider<OutageAPI>(plugins: [
            CachePlugin(storage: cache, configuration: .init(defaultStrategy: .cacheIfPossible, lifetime: 600)),
        ])
        for index in 0..<6 {
            let response = try await provider.request(OutageAPI(server: server.baseURL, index: index % 2))
            #expect(response.statusCode == 200)
        }
        #expect(server.hits(prefix: "/bytes") == 6)  // nothing was ever read back
        #expect(database.takeWaitingConnections() > 0)  // the pool did reach it
    }
}

/// A Unix socket named as PostgreSQL names its own, listening, that never
/// accepts: a client's connection completes in the kernel's backlog and its
/// start-up message is never answered.
private final class SilentSocket: Sendable {
    let directory: String
    private let descriptor: Int32

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-silent-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/.s.PGSQL.5432"
        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            Self.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        descriptor = fd
    }

    var connectionString: String { "postgres://courier@localhost/postgres?host=\(directory)&sslmode=disable" }

    /// Accepts and closes the connections waiting in the backlog, and says
    /// how many there were.
    func takeWaitingConnections() -> Int {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var count = 0
        while case let connection = accept(descriptor, nil, nil), connection >= 0 {
            Self.close(connection)
            count += 1
        }
        return count
    }

    func close() {
        Self.close(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
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
