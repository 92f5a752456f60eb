import CourierAuth
import CourierFleetSupport
import CourierPostgres
import Foundation
import PostgresNIO
import Testing

/// Every suite of this target, one test at a time: each starts its own
/// PostgreSQL, and the fleet tests' worker processes and time bounds want
/// the machine to themselves.
@Suite(.serialized)
enum PostgresTests {}

/// Starts a throwaway PostgreSQL for one test, runs `body`, and stops it.
/// A server that cannot start fails the test with the reason.
func withTemporaryPostgres<Result: Sendable>(_ body: (TemporaryPostgres) async throws -> Result) async throws -> Result {
    let server = try await TemporaryPostgres.started()
    do {
        let result = try await body(server)
        await server.shutDown()
        return result
    } catch {
        await server.shutDown()
        throw error
    }
}

/// A ``PostgresStorage`` on `server`, running for the duration of `body`:
/// each one is its own connection pool, as another process would have.
func withStorage<Result: Sendable>(
    _ server: TemporaryPostgres, fleetKey: FleetKey? = nil, _ body: (PostgresStorage) async throws -> Result
) async throws -> Result {
    var configuration = try PostgresStorage.Configuration(connectionString: server.connectionString, maximumConnections: 4)
    configuration.fleetKey = fleetKey
    let storage = PostgresStorage(configuration: configuration)
    let pool = Task { await storage.run() }
    defer { pool.cancel() }
    return try await body(storage)
}

/// Two storages on `server`, as two processes would have them.
func withTwoStorages<Result: Sendable>(
    _ server: TemporaryPostgres, fleetKey: FleetKey? = nil, _ body: (PostgresStorage, PostgresStorage) async throws -> Result
) async throws -> Result {
    try await withStorage(server, fleetKey: fleetKey) { first in
        try await withStorage(server, fleetKey: fleetKey) { second in try await body(first, second) }
    }
}

/// Runs SQL on `storage`, for a test to look at or spoil the tables.
func execute(_ sql: String, on storage: PostgresStorage) async throws {
    try await storage.client.query(PostgresQuery(unsafeSQL: sql))
}

/// The integers the first column of `sql` returns.
func integers(_ sql: String, on storage: PostgresStorage) async throws -> [Int] {
    try await values(sql, on: storage)
}

/// The first column of `sql`'s rows, as `Value`.
func values<Value: PostgresDecodable & Sendable>(_ sql: String, as _: Value.Type = Value.self,
                                                 on storage: PostgresStorage) async throws -> [Value] {
    var values: [Value] = []
    for try await value in try await storage.client.query(PostgresQuery(unsafeSQL: sql)).decode(Value.self) {
        values.append(value)
    }
    return values
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(within seconds: TimeInterval, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: 20_000_000)
    }
    return try await condition()
}

/// The token server's first credential, its access token already expired.
let expiredCredential = Credential(
    accessToken: RotatingTokenServer.initialAccessToken, refreshToken: RotatingTokenServer.initialRefreshToken,
    expiresAt: Date(timeIntervalSinceNow: -60), issuedAt: Date(timeIntervalSinceNow: -3_660)
)
