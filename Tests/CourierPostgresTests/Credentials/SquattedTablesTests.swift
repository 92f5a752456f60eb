import CourierAuth
import CourierFleetSupport
import CourierPostgres
import Foundation
import Testing

extension PostgresTests {
    /// Another role on the same database that got to the tables first, or
    /// was granted writes on them: the fleet refuses, and hands it nothing.
    @Suite
    struct SquattedTablesTests {
        @Test func tablesAnotherRoleCreatedFirstAreRefusedAndGetNoToken() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { admin in
                    try await execute("CREATE ROLE squatter LOGIN", on: admin)
                    try await execute("GRANT CREATE ON SCHEMA public TO squatter", on: admin)
                }
                let squatter = try PostgresStorage(
                    connectionString: "postgres://squatter@localhost/postgres?host=\(postgres.directory.path)&sslmode=disable",
                    maximumConnections: 1)
                let pool = Task { await squatter.run() }
                defer { pool.cancel() }
                for statement in [
                    "CREATE TABLE courier_schema (component text PRIMARY KEY, version integer NOT NULL)",
                    "INSERT INTO courier_schema VALUES ('courier', 1)",
                    """
                    CREATE TABLE courier_credentials (name text PRIMARY KEY, access_token text NOT NULL, refresh_token text,
                        expires_at double precision, issued_at double precision, updated_at timestamptz NOT NULL DEFAULT now())
                    """,
                    "GRANT ALL ON courier_schema, courier_credentials TO PUBLIC",
                ] {
                    try await execute(statement, on: squatter)
                }

                try await withStorage(postgres) { fleet in
                    let store = PostgresCredentialStore(storage: fleet, name: "fleet")
                    _ = await #expect {
                        try await store.persist(Credential(accessToken: "secret-access", refreshToken: "secret-refresh"))
                    } throws: { error in
                        guard case .untrustedTables(let problems) = error as? PostgresStorageError else { return false }
                        return problems.contains("courier_schema is owned by squatter")
                    }
                }
                #expect(try await integers("SELECT count(*)::bigint FROM courier_credentials", on: squatter) == [0])
            }
        }

        @Test func tablesAnotherRoleMayWriteAreRefused() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { fleet in
                    try await PostgresCredentialStore(storage: fleet, name: "fleet").persist(Credential(accessToken: "a"))
                    try await execute("CREATE ROLE neighbour LOGIN", on: fleet)
                    try await execute("GRANT UPDATE ON courier_credentials TO neighbour", on: fleet)
                }
                try await withStorage(postgres) { restarted in
                    _ = await #expect {
                        try await restarted.prepare()
                    } throws: { error in
                        guard case .untrustedTables(let problems) = error as? PostgresStorageError else { return false }
                        return problems.contains("courier_credentials lets neighbour UPDATE")
                    }
                }
            }
        }
    }
}
