import CourierAuth
import CourierPostgres
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

extension PostgresTests {
    /// What another session on the database, a sign-out at the wrong moment
    /// or a lost commit must not do to the fleet's credential.
    @Suite
    struct FleetUnderAttackTests {
        /// A sign-out that commits while the identity provider is answering
        /// waits for the refresh, then deletes what it wrote: the fleet stays
        /// signed out.
        @Test func aSignOutDuringARefreshStaysSignedOut() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { first, second in
                    let refreshing = PostgresCredentialStore(storage: first, name: "fleet",
                                                             configuration: .init(refreshTimeout: 20))
                    let signingOut = PostgresCredentialStore(storage: second, name: "fleet",
                                                             configuration: .init(refreshTimeout: 20))
                    try await refreshing.persist(expiredCredential)
                    let signOut = NIOLockedValueBox<Task<Void, any Error>?>(nil)
                    let refresh = refreshing.sharedRefresh { _ in
                        // While the identity provider answers, another process signs out.
                        signOut.withLockedValue { $0 = Task { try await signingOut.signOut() } }
                        let waiting = try await eventually(within: 10) {
                            try await integers("SELECT count(*)::bigint FROM pg_locks WHERE NOT granted", on: second) == [1]
                        }
                        #expect(waiting, "the sign-out did not wait for the refresh's lock")
                        return Credential(accessToken: "access-1", refreshToken: "refresh-1", expiresIn: 3_600)
                    }
                    _ = try await refresh(expiredCredential)
                    try await signOut.withLockedValue { $0 }?.value
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_credentials", on: first) == [0])
                    try await refreshing.reload()
                    #expect(refreshing.credential == nil)
                }
            }
        }

        /// The refresh's session is terminated after the identity provider
        /// answered, so its commit fails: the renewed credential is used at
        /// once, nobody is signed out, and the row gets it once the pool
        /// has reconnected.
        @Test func aRefreshWhoseCommitFailsIsNotLost() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { first, second in
                    let store = PostgresCredentialStore(storage: first, name: "fleet",
                                                        configuration: .init(refreshTimeout: 3))
                    try await store.persist(expiredCredential)
                    let terminated = NIOLockedValueBox<[Int]>([])
                    let refresh = store.sharedRefresh { _ in
                        // The one session in a transaction is the refresh's
                        // (its last statement may be the lock or a keep-alive).
                        let ended = try await integers("""
                            SELECT count(*)::bigint FROM (SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
                            WHERE state = 'idle in transaction' AND pid <> pg_backend_pid()) AS sessions WHERE ended
                            """, on: second)
                        terminated.withLockedValue { $0 = ended }
                        return Credential(accessToken: "access-1", refreshToken: "refresh-1", expiresIn: 3_600)
                    }
                    let renewed = try await refresh(expiredCredential)
                    #expect(terminated.withLockedValue { $0 } == [1], "the refresh's session was terminated")
                    #expect(renewed.accessToken == "access-1")
                    #expect(store.accessToken == "access-1")
                    let observer = PostgresCredentialStore(storage: second, name: "fleet")
                    let landed = try await eventually(within: 30) {
                        try await observer.reload()
                        return observer.accessToken == "access-1"
                    }
                    #expect(landed, "the renewed credential never reached the row")
                }
            }
        }

        /// Anyone who can connect may hold an advisory lock, and the name of
        /// the old one was public: the refresh no longer depends on it.
        @Test func aStrangerHoldingAnAdvisoryLockCannotStopARefresh() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { fleet, stranger in
                    let store = PostgresCredentialStore(storage: fleet, name: "fleet",
                                                        configuration: .init(refreshTimeout: 3))
                    try await store.persist(expiredCredential)
                    try await holdingAdvisoryLock("hashtext('courier.credential.fleet')", on: stranger) {
                        let refresh = store.sharedRefresh { _ in
                            Credential(accessToken: "access-1", refreshToken: "refresh-1", expiresIn: 3_600)
                        }
                        let renewed = try await refresh(expiredCredential)
                        #expect(renewed.accessToken == "access-1")
                    }
                }
            }
        }

        /// The schema lock is an advisory key too: a stranger holding it
        /// delays a new process's start by the lock's time-out, then the
        /// start fails with the database's reason; it never hangs.
        @Test func aStrangerHoldingTheSchemaLockDelaysAStartButNeverHangsIt() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { stranger in
                    try await holdingAdvisoryLock("\(0x436F_7572_6965_7201 as Int64)", on: stranger) {
                        try await withStorage(postgres) { fresh in
                            let started = Date()
                            await #expect(throws: (any Error).self) { try await fresh.prepare() }
                            #expect(Date().timeIntervalSince(started) < 30)
                        }
                    }
                }
            }
        }
    }
}

/// Runs `body` while a session of `storage` holds the advisory lock `key`
/// (an SQL expression), as a stranger on the database would.
private func holdingAdvisoryLock(_ key: String, on storage: PostgresStorage, _ body: () async throws -> Void) async throws {
    let logger = Logger(label: "stranger")
    let held = AsyncStream<Void>.makeStream()
    let release = AsyncStream<Void>.makeStream()
    let holder = Task { () async throws -> Void in
        try await storage.client.withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(key))"), logger: logger)
            held.continuation.yield()
            for await _ in release.stream { break }
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(key))"), logger: logger)
        }
    }
    for await _ in held.stream { break }
    do {
        try await body()
    } catch {
        release.continuation.finish()
        try? await holder.value
        throw error
    }
    release.continuation.finish()
    try await holder.value
}
