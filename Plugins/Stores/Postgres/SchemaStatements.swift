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
        // Before anything is written to a table that exists: one made by
        // another role could hand it the tokens or run its triggers as ours.
        try await checkOwnership(on: connection, logger: logger)
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
        try await checkOwnership(on: connection, logger: logger)
        return found
    }

    /// Refuses tables this role does not own, write privileges on them that
    /// another role holds, and a schema owned by a role other than this one
    /// or the database's owner (who could drop and replace the tables).
    /// - Throws: ``PostgresStorageError/untrustedTables(_:)`` saying what.
    static func checkOwnership(on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: ownershipProblems), logger: logger)
        var problems: [String] = []
        for try await problem in rows.decode(String.self) { problems.append(problem) }
        guard problems.isEmpty else { throw PostgresStorageError.untrustedTables(problems.joined(separator: "; ")) }
    }

    /// One line per problem with the tables that exist.
    private static let ownershipProblems = """
        WITH ours AS (
            SELECT c.oid, c.relname, c.relowner, c.relacl, c.relnamespace FROM pg_class c
            WHERE c.oid IN (to_regclass('courier_schema'), to_regclass('courier_credentials'), to_regclass('courier_cache'))
        ), me AS (SELECT oid FROM pg_roles WHERE rolname = current_user)
        SELECT relname || ' is owned by ' || pg_get_userbyid(relowner) FROM ours WHERE relowner <> (SELECT oid FROM me)
        UNION ALL
        SELECT DISTINCT relname || ' lets ' || CASE a.grantee WHEN 0 THEN 'every role' ELSE pg_get_userbyid(a.grantee) END
            || ' ' || a.privilege_type
        FROM ours, aclexplode(ours.relacl) a
        WHERE a.grantee <> ours.relowner AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES')
        UNION ALL
        SELECT DISTINCT 'schema ' || n.nspname || ' is owned by ' || pg_get_userbyid(n.nspowner)
        FROM ours JOIN pg_namespace n ON n.oid = ours.relnamespace
        WHERE n.nspowner <> (SELECT oid FROM me)
            AND n.nspowner <> (SELECT datdba FROM pg_database WHERE datname = current_database())
            AND n.nspowner <> 'pg_database_owner'::regrole
        """

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
