import Foundation
import Logging
import PostgresNIO

/// The statements that create version 1 of the tables (see
/// ``PostgresStorage/schemaVersion``).
enum SchemaStatements {
    /// Serialises schema creation across processes: concurrent
    /// `CREATE TABLE IF NOT EXISTS` can still collide in the catalog.
    static let lockKey: Int64 = 0x436F_7572_6965_7201  // "Courier" and 1
    /// The longest wait for the schema lock, in seconds.
    static let lockWait: TimeInterval = 10

    /// Creates what is missing and returns the version the database holds;
    /// creates nothing when that is another version.
    static func create(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        // Anyone who can connect may hold an advisory key: a held one delays
        // a process's start by at most this much, then fails its prepare
        // with the database's lock time-out, and never pins a connection.
        try await SessionLimits.apply(lockTimeout: lockWait, idleTimeout: lockWait, on: connection, logger: logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS courier_schema (component text PRIMARY KEY, version integer NOT NULL)",
            logger: logger
        )
        try await connection.query(
            "INSERT INTO courier_schema (component, version) VALUES ('courier', \(PostgresStorage.schemaVersion)) ON CONFLICT DO NOTHING",
            logger: logger
        )
        var found: Int?
        for try await version in try await connection.query(
            "SELECT version FROM courier_schema WHERE component = 'courier'", logger: logger
        ).decode(Int.self) {
            found = version
        }
        guard let found, found == PostgresStorage.schemaVersion else { return found ?? 0 }
        for statement in tables {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        return found
    }

    private static let tables = [
        """
        CREATE TABLE IF NOT EXISTS courier_credentials (
            name text PRIMARY KEY,
            access_token text NOT NULL,
            refresh_token text,
            expires_at double precision,
            issued_at double precision,
            updated_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        // Unlogged: a cache is not worth a write-ahead log, and a crash that
        // empties it loses nothing the network cannot give again.
        """
        CREATE UNLOGGED TABLE IF NOT EXISTS courier_cache (
            key_digest bytea PRIMARY KEY,
            status integer NOT NULL,
            headers bytea NOT NULL,
            body bytea NOT NULL,
            body_length integer NOT NULL,
            url text,
            stored_at double precision NOT NULL,
            expires_at double precision,
            vary bytea NOT NULL,
            size bigint NOT NULL,
            used_at double precision NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS courier_cache_used_at ON courier_cache (used_at)",
    ]
}
