import CourierAuth
import CourierPostgres
import PostgresNIO
import Foundation
import Testing

extension PostgresTests {
    @Suite
    struct PostgresCredentialStoreTests {
        @Test func signOutClearsTheRowForEveryProcess() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { first, second in
                    let mine = PostgresCredentialStore(storage: first, name: "fleet")
                    let theirs = PostgresCredentialStore(storage: second, name: "fleet")
                    try await mine.persist(Credential(accessToken: "a", refreshToken: "r", expiresIn: 60))
                    try await theirs.reload()
                    #expect(theirs.accessToken == "a")

                    mine.clear()
                    #expect(mine.credential == nil)
                    await mine.waitForPendingWrites()
                    try await theirs.reload()
                    #expect(theirs.credential == nil)
                }
            }
        }

        @Test func aRefreshThatOutlivesTheTimeoutIsAbandonedAndReleasesTheLock() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres) { first, second in
                    let stuck = PostgresCredentialStore(storage: first, name: "fleet",
                                                        configuration: .init(refreshTimeout: 0.5))
                    try await stuck.persist(expiredCredential)
                    let neverReturns = stuck.sharedRefresh { _ in
                        try await Task.sleep(for: .seconds(3_600))
                        return Credential(accessToken: "never")
                    }
                    let started = Date()
                    await #expect(throws: PostgresStorageError.self) { try await neverReturns(expiredCredential) }
                    #expect(Date().timeIntervalSince(started) < 5)

                    // The lock is free again: another process refreshes at once.
                    let other = PostgresCredentialStore(storage: second, name: "fleet",
                                                        configuration: .init(refreshTimeout: 5))
                    let refresh = other.sharedRefresh { credential in
                        #expect(credential.refreshToken == "refresh-0")
                        return Credential(accessToken: "access-1", refreshToken: "refresh-1", expiresIn: 3_600)
                    }
                    let renewed = try await refresh(expiredCredential)
                    #expect(renewed.accessToken == "access-1")
                    #expect(other.accessToken == "access-1")
                    try await stuck.reload()
                    #expect(stuck.accessToken == "access-1")
                }
            }
        }

        @Test func aRefusalReachesTheAuthPluginAsItIsAndASignedOutRowIsOne() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let store = PostgresCredentialStore(storage: storage, name: "fleet")
                    try await store.persist(expiredCredential)
                    let refused = store.sharedRefresh { _ in throw AuthPlugin.RefreshRefused(reason: "revoked") }
                    await #expect(throws: AuthPlugin.RefreshRefused.self) { try await refused(expiredCredential) }
                    #expect(store.accessToken == expiredCredential.accessToken)  // a failed refresh writes nothing

                    try await store.signOut()
                    let afterSignOut = store.sharedRefresh { _ in
                        Issue.record("refreshed a credential that was signed out")
                        return expiredCredential
                    }
                    await #expect(throws: AuthPlugin.RefreshRefused.self) { try await afterSignOut(expiredCredential) }
                }
            }
        }

        @Test func aProcessThatFindsTheCredentialRenewedDoesNotRefresh() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    let store = PostgresCredentialStore(storage: storage, name: "fleet")
                    try await store.persist(Credential(accessToken: "access-1", refreshToken: "refresh-1", expiresIn: 3_600))
                    let refresh = store.sharedRefresh { _ in
                        Issue.record("refreshed although the row holds a newer credential")
                        return Credential(accessToken: "wrong")
                    }
                    #expect(try await refresh(expiredCredential).accessToken == "access-1")
                }
            }
        }

        @Test func aSchemaOfAnotherVersionIsAClearError() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { storage in
                    try await PostgresCredentialStore(storage: storage, name: "fleet").persist(expiredCredential)
                    try await execute("UPDATE courier_schema SET version = 99", on: storage)
                }
                try await withStorage(postgres) { storage in
                    let store = PostgresCredentialStore(storage: storage, name: "fleet")
                    await #expect(throws: PostgresStorageError.schemaVersionMismatch(found: 99, expected: 1)) {
                        try await store.reload()
                    }
                    #expect(store.credential == nil)
                }
            }
        }

        @Test func aConnectionStringIsReadOrRefusedWithAReason() throws {
            #expect(throws: PostgresStorageError.self) { try PostgresStorage.Configuration(connectionString: "mysql://x@y/z") }
            #expect(throws: PostgresStorageError.self) { try PostgresStorage.Configuration(connectionString: "postgres://host/db") }
            let socket = try PostgresStorage.Configuration(connectionString: "postgres://me@localhost/db?host=/tmp/pg")
            #expect(socket.client.unixSocketPath == "/tmp/pg/.s.PGSQL.5432")
            #expect(socket.client.database == "db")
            let tcp = try PostgresStorage.Configuration(connectionString: "postgresql://me:secret@db.internal:6543/app?sslmode=disable",
                                                        maximumConnections: 3)
            #expect(tcp.client.host == "db.internal")
            #expect(tcp.client.port == 6543)
            #expect(tcp.client.password == "secret")
            #expect(tcp.client.options.maximumConnections == 3)
        }
    }
}
