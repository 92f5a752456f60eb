import CourierAuth
import Foundation
import Logging
import PostgresNIO

/// The statements on `courier_credentials`: one row per credential name.
enum CredentialRow {
    static func read(name: String, on connection: PostgresConnection, logger: Logger) async throws -> Credential? {
        let rows = try await connection.query(
            "SELECT access_token, refresh_token, expires_at, issued_at FROM courier_credentials WHERE name = \(name)",
            logger: logger
        )
        var credential: Credential?
        for try await (access, refresh, expires, issued) in rows.decode((String, String?, Double?, Double?).self) {
            credential = Credential(
                accessToken: access, refreshToken: refresh,
                expiresAt: expires.flatMap(date), issuedAt: issued.flatMap(date)
            )
        }
        return credential
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
