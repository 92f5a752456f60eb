import CourierAuth
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// A `CredentialStoring` whose credential lives in PostgreSQL, shared by a
/// fleet of processes that refresh it once for all of them.
///
/// Give the store's ``sharedRefresh(_:)`` to `AuthPlugin` in place of the
/// bare refresh closure. The process that refreshes holds a lock in
/// PostgreSQL while it calls the closure; every other process that needs a
/// refresh meanwhile waits for the lock, then finds the new credential in the
/// table and uses it instead of refreshing. With a server that accepts each
/// refresh token once, a second refresh would be refused and sign the user
/// out: this is what prevents it.
///
/// ```swift
/// let storage = try PostgresStorage(connectionString: databaseURL)
/// let store = PostgresCredentialStore(storage: storage, name: "orders-api")
/// let auth = AuthPlugin(store: store, refresh: store.sharedRefresh { credential in
///     try await tokenClient.refresh(credential)  // called by one process of the fleet
/// })
/// let group = ServiceGroup(services: [storage, store], logger: logger)  // runs the pool, loads and follows the row
/// ```
///
/// ## The lock
/// The row itself, locked with `SELECT … FOR UPDATE` by the transaction that
/// reads it, calls the identity provider and writes the answer. Only a role
/// that may update the table can take that lock (an advisory lock, which
/// anyone who can connect may hold, is not used), and it is released by
/// `COMMIT` together with the write becoming visible, by `ROLLBACK` when the
/// refresh fails, and by PostgreSQL itself when the session ends: a killed
/// process never leaves the fleet locked. While the identity provider
/// answers, the holder keeps its session busy (a no-op every few seconds),
/// so one that stops (a frozen host) goes silent and loses its session
/// after a lease of ten seconds, or ``Configuration-swift.struct/refreshTimeout``
/// and a second where that is shorter (`idle_in_transaction_session_timeout`),
/// while a live holder with a slow identity provider keeps the lock for its
/// whole time-out. Waiting for the lock is bounded
/// by the same time (`lock_timeout`), and so is the refresh: one that
/// outlives it is abandoned and the lock released, as `AuthPlugin` abandons
/// a refresh. A sign-out's delete waits for the lock too, so a refresh in
/// flight never brings a signed-out credential back, and every other write
/// is conditional on the access token it replaces
/// (``replaceCredential(holding:with:)``).
///
/// When the identity provider has answered but the write or its commit fails
/// (a restarted database, a terminated session), its old refresh token is
/// already spent: the new credential is used at once and written in the
/// background until it lands or the row holds something newer.
///
/// ## Reading without waiting
/// `CredentialStoring` is synchronous, so the store answers ``credential``
/// from memory: what ``reload()`` last read (``run()`` reloads every
/// ``Configuration-swift.struct/pollInterval``), what this process saved, or
/// what a shared refresh returned. ``save(_:)`` and ``clear()`` change that
/// copy at once and write the row in the background, in order; a failed write
/// goes to ``Configuration-swift.struct/onWriteFailure``. ``persist(_:)`` and
/// ``signOut()`` write and wait, and throw.
///
/// ## What is stored
/// The row, named by the store's ``name``, holds the access token, the
/// refresh token, the expiry and issue dates in the `courier_credentials`
/// table. With a ``FleetKey`` (``PostgresStorage/Configuration-swift.struct/fleetKey``)
/// the tokens are sealed with AES-GCM, each bound to the row's name and
/// column; a row that does not open under the key is read as no credential.
/// Without one they are in clear, and PostgreSQL is the secret's keeper.
/// Either way, grant the table to the fleet's database role only, connect
/// with TLS (`sslmode=require`) to a database off the public network, and
/// keep its disks and backups encrypted as for any other secret. Sign-out
/// (``clear()`` or ``signOut()``) deletes the row for every process.
public final class PostgresCredentialStore: CredentialStoring, Service {
    /// The database the row lives in.
    public let storage: PostgresStorage
    /// The row's name: stores with the same name share one credential (and
    /// one refresh lock), so each app or environment that shares a database
    /// names its own, such as `"orders-api"` or `"orders-api staging"`.
    public let name: String
    /// The timings and failure handler of this store.
    public let configuration: Configuration

    private struct Mirror {
        var credential: Credential?
        /// Bumped by every local change, so a reload that read the row before
        /// the change does not undo it.
        var generation: UInt64 = 0
    }

    private let mirror = NIOLockedValueBox(Mirror())
    let writes: WriteQueue

    /// Creates a store; call ``reload()`` or ``run()`` before reading it.
    /// - Parameters:
    ///   - storage: The database.
    ///   - name: The row's name, which every process of one fleet gives and
    ///     no other app on the database does; see ``name``.
    ///   - configuration: The timings and the failure handler.
    public init(storage: PostgresStorage, name: String, configuration: Configuration = Configuration()) {
        self.storage = storage
        self.name = name
        self.configuration = configuration
        let onFailure = configuration.onWriteFailure
        self.writes = WriteQueue(limit: .max) { error in onFailure?(error) }
    }

    // MARK: - CredentialStoring

    /// The credential as this process last saw it.
    public var credential: Credential? {
        mirror.withLockedValue { $0.credential }
    }

    /// Keeps `credential` in memory at once and writes it to the row in the
    /// background.
    /// - Parameter credential: The credential to keep.
    public func save(_ credential: Credential) {
        remember(credential)
        writes.enqueue { [self] in try await write(credential) }
    }

    /// Forgets the credential at once and deletes the row, for every
    /// process, in the background. A refresh in flight in any process
    /// finishes first (the delete waits for the row's lock), so it cannot
    /// bring the credential back.
    public func clear() {
        remember(nil)
        writes.enqueue { [self] in try await delete() }
    }

    /// Replaces the credential only while it is the one whose access token
    /// is `accessToken` (none, for `nil`), here and in the row: the check and
    /// the change are one statement, so a sign-out or a newer credential
    /// written by another process meanwhile is never overwritten.
    /// - Returns: Whether this process's copy held `accessToken` and was
    ///   replaced; the row follows in the background, only if it still holds
    ///   it too.
    public func replaceCredential(holding accessToken: String?, with credential: Credential?) -> Bool {
        let replaced = mirror.withLockedValue { mirror in
            guard mirror.credential?.accessToken == accessToken else { return false }
            mirror.credential = credential
            mirror.generation &+= 1
            return true
        }
        guard replaced else { return false }
        writes.enqueue { [self] in
            _ = try await rowTransaction { [self] connection in
                try await CredentialRow.replace(holding: accessToken, with: credential, name: name, key: storage.fleetKey,
                                                on: connection, logger: storage.logger)
            }
        }
        return true
    }

    // MARK: - Waiting for the database

    /// Writes `credential` to the row and waits for it.
    /// - Parameter credential: The credential to keep.
    /// - Throws: The database's error, or
    ///   ``PostgresStorageError/schemaVersionMismatch(found:expected:)``.
    public func persist(_ credential: Credential) async throws {
        remember(credential)
        await writes.waitUntilDone()
        try await write(credential)
    }

    /// Deletes the row, signing out every process, and waits for it.
    /// - Throws: The database's error, or
    ///   ``PostgresStorageError/schemaVersionMismatch(found:expected:)``.
    public func signOut() async throws {
        remember(nil)
        await writes.waitUntilDone()
        try await delete()
    }

    /// Reads the row into memory.
    /// - Throws: The database's error, or
    ///   ``PostgresStorageError/schemaVersionMismatch(found:expected:)``.
    public func reload() async throws {
        let generation = mirror.withLockedValue { $0.generation }
        guard writes.pending == 0 else { return }
        try await storage.prepareSchema()
        let row = try await storage.client.withConnection { connection in
            try await CredentialRow.read(name: name, key: storage.fleetKey, on: connection, logger: storage.logger)
        }
        mirror.withLockedValue { mirror in
            if mirror.generation == generation && writes.pending == 0 { mirror.credential = row }
        }
    }

    /// Returns once every background write has finished.
    public func waitForPendingWrites() async {
        await writes.waitUntilDone()
    }

    /// Reloads the row every ``Configuration-swift.struct/pollInterval``
    /// until the task is cancelled or a graceful shutdown begins, so a
    /// refresh or sign-out by another process reaches this one without a
    /// request. A failed reload keeps what is in memory and is tried again.
    public func run() async throws {
        try? await reload()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await Task.sleep(for: configuration.pollInterval)
            } catch {
                break
            }
            try? await reload()
        }
        await writes.waitUntilDone()
    }

    // MARK: - Helpers

    func remember(_ credential: Credential?) {
        mirror.withLockedValue {
            $0.credential = credential
            $0.generation &+= 1
        }
    }

    private func write(_ credential: Credential) async throws {
        try await storage.prepareSchema()
        try await storage.client.withConnection { connection in
            try await CredentialRow.write(credential, name: name, key: storage.fleetKey, on: connection, logger: storage.logger)
        }
    }

    private func delete() async throws {
        try await rowTransaction { [self] connection in
            try await CredentialRow.delete(name: name, on: connection, logger: storage.logger)
        }
    }

    /// Runs `body` in a transaction that waits for a refresh holding the row
    /// at most as long as one may hold it (its time-out and the idle second
    /// after which PostgreSQL ends a frozen holder's session).
    private func rowTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await storage.prepareSchema()
        let (logger, seconds) = (storage.logger, configuration.refreshTimeout)
        return try await storage.client.withTransaction(logger: logger) { connection in
            try await SessionLimits.apply(lockTimeout: seconds + 1, idleTimeout: seconds, on: connection, logger: logger)
            return try await body(connection)
        }
    }

    /// Writes `renewed` over the credential whose access token is
    /// `replacing`, trying again (after 0.2 s, doubling to 5 s) until it
    /// lands or the row holds something else (a newer credential, or none
    /// after a sign-out), which wins.
    func writeUntilLanded(_ renewed: Credential, replacing: String) async throws {
        var pause = 0.2
        while true {
            do {
                try await storage.prepareSchema()
                let row: Credential?? = try await storage.client.withConnection { connection in
                    let landed = try await CredentialRow.replace(holding: replacing, with: renewed, name: name, key: storage.fleetKey,
                                                                 on: connection, logger: storage.logger)
                    return landed ? .none : .some(try await CredentialRow.read(name: name, key: storage.fleetKey, on: connection,
                                                                                logger: storage.logger))
                }
                // Not landed: what the row holds wins over the renewed copy.
                if let row {
                    mirror.withLockedValue { mirror in
                        guard mirror.credential?.accessToken == renewed.accessToken else { return }
                        mirror.credential = row
                        mirror.generation &+= 1
                    }
                }
                return
            } catch {
                configuration.onWriteFailure?(error)
                try await Task.sleep(for: .seconds(pause))
                pause = min(pause * 2, 5)
            }
        }
    }
}
