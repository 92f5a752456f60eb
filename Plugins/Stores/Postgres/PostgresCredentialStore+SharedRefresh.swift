import CourierAuth
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

extension PostgresCredentialStore {
    /// Wraps a refresh closure so that one process of the fleet runs it and
    /// the others use its result.
    ///
    /// The returned closure, called by `AuthPlugin` with the credential it
    /// found expired or refused:
    /// 1. takes the fleet's lock for this credential's name (waiting at most
    ///    ``Configuration-swift.struct/refreshTimeout`` for another process
    ///    to release it),
    /// 2. reads the row: when another process has replaced the credential
    ///    meanwhile with one that has not expired, returns that one without
    ///    refreshing; when the row is gone (someone signed out), throws
    ///    `AuthPlugin.RefreshRefused`;
    /// 3. otherwise calls `refresh` with the row's credential (whose refresh
    ///    token is the newest), writes the result, and releases the lock as
    ///    the write commits.
    ///
    /// A refresh that throws or outlives the timeout writes nothing, and the
    /// lock is released at once.
    /// - Parameter refresh: Exchanges a credential for a new one.
    /// - Returns: The closure to give `AuthPlugin`.
    public func sharedRefresh(_ refresh: @escaping AuthPlugin.Refresh) -> AuthPlugin.Refresh {
        { [self] stale in
            let renewed = try await refreshOnce(replacing: stale, refresh)
            remember(renewed)
            return renewed
        }
    }

    private func refreshOnce(replacing stale: Credential, _ refresh: @escaping AuthPlugin.Refresh) async throws -> Credential {
        try await storage.prepareSchema()
        await waitForPendingWrites()
        let seconds = configuration.refreshTimeout
        do {
            return try await lockedRefresh(replacing: stale, refresh, name: name, seconds: seconds)
        } catch let error as PostgresTransactionError {
            // The refresh's own error, unwrapped: AuthPlugin tells a refusal
            // (sign out) from an outage (keep the credential) by it.
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    private func lockedRefresh(
        replacing stale: Credential, _ refresh: @escaping AuthPlugin.Refresh, name: String, seconds: TimeInterval
    ) async throws -> Credential {
        let logger = storage.logger
        // What the identity provider answered, once it has: from then on its
        // old refresh token is spent, so the answer must not be lost.
        let answered = NIOLockedValueBox<(replacing: String, renewed: Credential)?>(nil)
        do {
            // The lock wait and the refresh take at most `seconds` each; a
            // session the server ended can leave the transaction waiting on
            // a reply that never comes, so the whole is bounded too.
            let storage = storage
            return try await Deadline.run(
                within: seconds * 2 + 5, timeout: { PostgresStorageError.refreshTimedOut(seconds: seconds) }
            ) { try await storage.client.withTransaction(logger: logger) { connection in
                // The lock is held while the identity provider answers, at
                // most `seconds`; this process keeps its session busy
                // meanwhile, so a holder silent for its lease is frozen or
                // gone, and loses the lock after seconds.
                let lease = SessionLimits.lease(refreshTimeout: seconds)
                try await SessionLimits.apply(lockTimeout: seconds, idleTimeout: lease, on: connection, logger: logger)
                guard let current = try await CredentialRow.read(name: name, key: storage.fleetKey, locking: true, on: connection,
                                                                 logger: logger) else {
                    throw AuthPlugin.RefreshRefused(reason: "the credential was signed out by another process")
                }
                if current.accessToken != stale.accessToken && !current.isExpired() {
                    return current
                }
                let renewed = try await SessionLimits.keepingAlive(connection, every: lease / 4, logger: logger) {
                    let renewed = try await Deadline.run(
                        within: seconds, timeout: { PostgresStorageError.refreshTimedOut(seconds: seconds) }
                    ) {
                        try await refresh(current)
                    }
                    // Kept before anything else can fail or stall: the old
                    // refresh token is spent now.
                    answered.withLockedValue { $0 = (current.accessToken, renewed) }
                    return renewed
                }
                // The row is locked, so it still holds `current`.
                _ = try await CredentialRow.replace(holding: current.accessToken, with: renewed, name: name, key: storage.fleetKey,
                                                    on: connection, logger: logger)
                return renewed
            } }
        } catch {
            guard let (replacing, renewed) = answered.withLockedValue({ $0 }) else { throw error }
            // The write or its commit failed after the identity provider
            // answered (a restarted database, a terminated session): the new
            // credential is used at once and written until it lands.
            writes.enqueue { [self] in try await writeUntilLanded(renewed, replacing: replacing) }
            return renewed
        }
    }
}
