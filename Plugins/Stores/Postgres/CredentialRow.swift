import CourierAuth
import Foundation
import Logging
import PostgresNIO

/// The statements on `courier_credentials`: one row per credential name.
enum CredentialRow {
    /// Reads the row. With `locking`, locks it too until the transaction
    /// ends: the fleet's refresh lock. Only a role that may update the table
    /// can take it, so no stranger can hold it (an advisory lock needs no
    /// privilege); the wait is bounded by the transaction's `lock_timeout`.
    static func read(name: String, locking: Bool = false, on connection: PostgresConnection, logger: Logger) async throws -> Credential? {
        let select = "SELECT access_token, refresh_token, expires_at, issued_at FROM courier_credentials WHERE name = $1"
        var bindings = PostgresBindings()
        bindings.append(name)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: locking ? select + " FOR UPDATE" : select, binds: bindings),
                                              logger: logger)
        var credential: Credential?
        for try await (access, refresh, expires, issued) in rows.decode((String, String?, Double?, Double?).self) {
            credential = Credential(
                accessToken: access, refreshToken: refresh,
                expiresAt: expires.flatMap(date), issuedAt: issued.flatMap(date)
            )
        }
        return credential
    }

    /// Replaces the credential only while the row holds `holding` (with no
    /// row when `holding` is `nil`, which inserts); deletes it when
    /// `credential` is `nil`. One statement, so nothing lands between the
    /// check and the change. Returns whether the row changed.
    static func replace(holding: String?, with credential: Credential?, name: String,
                        on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let expires = credential?.expiresAt?.timeIntervalSince1970
        let issued = credential?.issuedAt?.timeIntervalSince1970
        let rows: PostgresRowSequence
        switch (holding, credential) {
        case (let holding?, let credential?):
            rows = try await connection.query(
                """
                UPDATE courier_credentials SET access_token = \(credential.accessToken),
                    refresh_token = \(credential.refreshToken), expires_at = \(expires), issued_at = \(issued), updated_at = now()
                WHERE name = \(name) AND access_token = \(holding) RETURNING 1
                """,
                logger: logger
            )
        case (nil, let credential?):
            rows = try await connection.query(
                """
                INSERT INTO courier_credentials (name, access_token, refresh_token, expires_at, issued_at, updated_at)
                VALUES (\(name), \(credential.accessToken), \(credential.refreshToken), \(expires), \(issued), now())
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """,
                logger: logger
            )
        case (let holding?, nil):
            rows = try await connection.query(
                "DELETE FROM courier_credentials WHERE name = \(name) AND access_token = \(holding) RETURNING 1", logger: logger
            )
        case (nil, nil):
            return false
        }
        var changed = false
        for try await _ in rows { changed = true }
        return changed
    }

    static func write(_ credential: Credential, name: String, on connection: PostgresConnection, logger: Logger) async throws {
        let expires = credential.expiresAt?.timeIntervalSince1970
        let issued = credential.issuedAt?.timeIntervalSince1970
        try await connection.query(
            """
            INSERT INTO courier_credentials (name, access_token, refresh_token, expires_at, issued_at, updated_at)
            VALUES (\(name), \(credential.accessToken), \(credential.refreshToken), \(expires), \(issued), now())
            ON CONFLICT (name) DO UPDATE SET access_token = EXCLUDED.access_token,
                refresh_token = EXCLUDED.refresh_token, expires_at = EXCLUDED.expires_at,
                issued_at = EXCLUDED.issued_at, updated_at = now()
            """,
            logger: logger
        )
    }

    static func delete(name: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM courier_credentials WHERE name = \(name)", logger: logger)
    }

    /// A stored date, or none when the number is not one (a row edited by hand).
    private static func date(_ seconds: Double) -> Date? {
        seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
    }
}
