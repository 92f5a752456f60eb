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
    /// With a fleet key, a row whose tokens do not open under it is read as
    /// no credential.
    static func read(name: String, key: FleetKey?, locking: Bool = false, on connection: PostgresConnection,
                     logger: Logger) async throws -> Credential? {
        try await readStored(name: name, key: key, locking: locking, on: connection, logger: logger)?.credential
    }

    /// The row's credential (`nil` when a token does not open) and the
    /// access token's column as stored.
    private static func readStored(name: String, key: FleetKey?, locking: Bool = false, on connection: PostgresConnection,
                                   logger: Logger) async throws -> (credential: Credential?, storedAccess: String)? {
        let select = "SELECT access_token, refresh_token, expires_at, issued_at FROM courier_credentials WHERE name = $1"
        var bindings = PostgresBindings()
        bindings.append(name)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: locking ? select + " FOR UPDATE" : select, binds: bindings),
                                              logger: logger)
        var found: (credential: Credential?, storedAccess: String)?
        for try await (access, refresh, expires, issued) in rows.decode((String, String?, Double?, Double?).self) {
            var credential: Credential?
            if let tokens = opened(access: access, refresh: refresh, dates: (expires, issued), name: name, key: key) {
                credential = Credential(accessToken: tokens.access, refreshToken: tokens.refresh,
                                        expiresAt: expires.flatMap(date), issuedAt: issued.flatMap(date))
            }
            found = (credential, access)
        }
        return found
    }

    // MARK: - Sealing

    /// The tokens as the columns hold them: sealed under `key`, or as they
    /// are without a key. The access token's seal is bound to the row's
    /// name, its dates and whether it has a refresh token; the refresh
    /// token's to the name and the access token's sealed text, so neither
    /// can be moved to another row, paired with another, or given other
    /// dates. (A whole row put back as it was earlier still opens.)
    private static func stored(_ credential: Credential, name: String, key: FleetKey?) -> (access: String, refresh: String?)? {
        guard let key else { return (credential.accessToken, credential.refreshToken) }
        let dates = (credential.expiresAt?.timeIntervalSince1970, credential.issuedAt?.timeIntervalSince1970)
        guard let access = key.sealedText(credential.accessToken,
                                          context: accessContext(name, dates, hasRefresh: credential.refreshToken != nil))
        else { return nil }
        guard let refresh = credential.refreshToken else { return (access, nil) }
        guard let sealed = key.sealedText(refresh, context: refreshContext(name, sealedAccess: access)) else { return nil }
        return (access, sealed)
    }

    /// The tokens the columns hold, or `nil` when one does not open. Without
    /// a key, a sealed token is none either: a process that lacks the
    /// fleet's key must not send a sealed text as its token.
    private static func opened(access: String, refresh: String?, dates: (Double?, Double?), name: String,
                               key: FleetKey?) -> (access: String, refresh: String?)? {
        guard let key else {
            guard !FleetKey.isSealed(access), !(refresh.map(FleetKey.isSealed) ?? false) else { return nil }
            return (access, refresh)
        }
        guard let opened = key.openedText(access, context: accessContext(name, dates, hasRefresh: refresh != nil)) else { return nil }
        guard let refresh else { return (opened, nil) }
        guard let openedRefresh = key.openedText(refresh, context: refreshContext(name, sealedAccess: access)) else { return nil }
        return (opened, openedRefresh)
    }

    private static func accessContext(_ name: String, _ dates: (expires: Double?, issued: Double?), hasRefresh: Bool) -> Data {
        var context = SealContext("courier_credentials access_token")
        context.append(name)
        context.append(dates.expires)
        context.append(dates.issued)
        context.append(hasRefresh ? "with refresh_token" : "without refresh_token")
        return context.bytes
    }

    private static func refreshContext(_ name: String, sealedAccess: String) -> Data {
        var context = SealContext("courier_credentials refresh_token")
        context.append(name)
        context.append(sealedAccess)
        return context.bytes
    }

    /// A credential the fleet key could not seal (AES-GCM failed).
    struct SealingFailed: Error, CustomStringConvertible {
        var description: String { "the credential could not be sealed under the fleet key" }
    }

    // MARK: - Writing

    /// Replaces the credential only while the row holds `holding` (with no
    /// row when `holding` is `nil`, which inserts); deletes it when
    /// `credential` is `nil`. One statement, so nothing lands between the
    /// check and the change. Returns whether the row changed.
    ///
    /// With a fleet key the stored tokens are sealed anew on every write, so
    /// the row is read first and the statement's condition is the sealed
    /// access token as read: still one conditional statement, which no
    /// other write can slip under. A row that does not open counts as no
    /// row, and is replaced.
    static func replace(holding: String?, with credential: Credential?, name: String, key: FleetKey?,
                        on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        guard let key else {
            return try await replace(condition: holding.map(Condition.holds) ?? .absent, with: credential, name: name, key: nil,
                                     on: connection, logger: logger)
        }
        let current = try await readStored(name: name, key: key, on: connection, logger: logger)
        guard current?.credential?.accessToken == holding else { return false }
        return try await replace(condition: current.map { .holds($0.storedAccess) } ?? .absent, with: credential, name: name,
                                 key: key, on: connection, logger: logger)
    }

    /// What the row must hold for a replacement: no row, or this access
    /// token's column as stored.
    private enum Condition {
        case absent
        case holds(String)
    }

    private static func replace(condition: Condition, with credential: Credential?, name: String, key: FleetKey?,
                                on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let expires = credential?.expiresAt?.timeIntervalSince1970
        let issued = credential?.issuedAt?.timeIntervalSince1970
        let tokens = try credential.map { credential in
            guard let tokens = stored(credential, name: name, key: key) else { throw SealingFailed() }
            return tokens
        }
        let rows: PostgresRowSequence
        switch (condition, tokens) {
        case (.holds(let holding), let tokens?):
            rows = try await connection.query(
                """
                UPDATE courier_credentials SET access_token = \(tokens.access),
                    refresh_token = \(tokens.refresh), expires_at = \(expires), issued_at = \(issued), updated_at = now()
                WHERE name = \(name) AND access_token = \(holding) RETURNING 1
                """,
                logger: logger
            )
        case (.absent, let tokens?):
            rows = try await connection.query(
                """
                INSERT INTO courier_credentials (name, access_token, refresh_token, expires_at, issued_at, updated_at)
                VALUES (\(name), \(tokens.access), \(tokens.refresh), \(expires), \(issued), now())
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """,
                logger: logger
            )
        case (.holds(let holding), nil):
            rows = try await connection.query(
                "DELETE FROM courier_credentials WHERE name = \(name) AND access_token = \(holding) RETURNING 1", logger: logger
            )
        case (.absent, nil):
            return false
        }
        var changed = false
        for try await _ in rows { changed = true }
        return changed
    }

    static func write(_ credential: Credential, name: String, key: FleetKey?, on connection: PostgresConnection,
                      logger: Logger) async throws {
        let expires = credential.expiresAt?.timeIntervalSince1970
        let issued = credential.issuedAt?.timeIntervalSince1970
        guard let tokens = stored(credential, name: name, key: key) else { throw SealingFailed() }
        try await connection.query(
            """
            INSERT INTO courier_credentials (name, access_token, refresh_token, expires_at, issued_at, updated_at)
            VALUES (\(name), \(tokens.access), \(tokens.refresh), \(expires), \(issued), now())
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
