import Courier
import CourierAuth
import CourierCache
import CourierPostgres
import Foundation
import PostgresNIO
import Testing

/// With a fleet key, what the tables hold is sealed: whoever reads them finds
/// no token and cannot test a guessed cache key, and a row changed or moved
/// in the table is read as absent, never served. Without a key (every
/// earlier release) each of these rows was read as it was.
extension PostgresTests {
    @Suite
    struct FleetKeyTests {
        static let key = FleetKey.generate()

        static func fleetKey() throws -> FleetKey {
            try FleetKey(base64: key)
        }

        @Test func tokensAreSealedAtRestAndOpenInAnotherProcess() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres, fleetKey: try Self.fleetKey()) { first, second in
                    let credential = Credential(accessToken: "access-secret", refreshToken: "refresh-secret", expiresIn: 3600)
                    try await PostgresCredentialStore(storage: first, name: "orders").persist(credential)

                    let stored = try await values("SELECT access_token || ' ' || refresh_token FROM courier_credentials",
                                                  as: String.self, on: first)
                    #expect(stored.count == 1)
                    #expect(stored.allSatisfy { !$0.contains("secret") }, "no token in clear: \(stored)")

                    let other = PostgresCredentialStore(storage: second, name: "orders")
                    try await other.reload()
                    #expect(other.credential?.accessToken == "access-secret")
                    #expect(other.credential?.refreshToken == "refresh-secret")
                }
            }
        }

        /// A sealed token copied to another credential's row, or changed, does
        /// not open: the store reads no credential rather than a planted one.
        @Test func aTokenMovedToAnotherRowOrChangedIsNoCredential() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres, fleetKey: try Self.fleetKey()) { storage in
                    try await PostgresCredentialStore(storage: storage, name: "orders").persist(Credential(accessToken: "a1"))
                    try await PostgresCredentialStore(storage: storage, name: "billing").persist(Credential(accessToken: "b1"))
                    // Another role with write access moves orders' token into billing's row,
                    try await execute("""
                        UPDATE courier_credentials SET access_token = (SELECT access_token FROM courier_credentials WHERE name = 'orders')
                        WHERE name = 'billing'
                        """, on: storage)
                    // and flips a character of orders' own.
                    try await execute("""
                        UPDATE courier_credentials SET access_token = overlay(access_token placing
                            CASE WHEN substr(access_token, 20, 1) = 'A' THEN 'B' ELSE 'A' END from 20 for 1)
                        WHERE name = 'orders'
                        """, on: storage)
                    for name in ["orders", "billing"] {
                        let store = PostgresCredentialStore(storage: storage, name: name)
                        try await store.reload()
                        #expect(store.credential == nil, "\(name)")
                    }
                    // A store signs in again over a row that does not open.
                    let orders = PostgresCredentialStore(storage: storage, name: "orders")
                    #expect(orders.replaceCredential(holding: nil, with: Credential(accessToken: "a2")))
                    await orders.waitForPendingWrites()
                    let reread = PostgresCredentialStore(storage: storage, name: "orders")
                    try await reread.reload()
                    #expect(reread.credential?.accessToken == "a2")
                }
            }
        }

        /// A credential row written without the key, or under another key, is
        /// read as absent by a fleet that has one.
        @Test func credentialsWrittenWithoutTheKeyOrUnderAnotherDoNotOpen() async throws {
            try await withTemporaryPostgres { postgres in
                try await withStorage(postgres) { clear in
                    try await PostgresCredentialStore(storage: clear, name: "orders").persist(Credential(accessToken: "plain"))
                }
                try await withStorage(postgres, fleetKey: try FleetKey(base64: FleetKey.generate())) { other in
                    try await PostgresCredentialStore(storage: other, name: "billing").persist(Credential(accessToken: "theirs"))
                }
                try await withStorage(postgres, fleetKey: try Self.fleetKey()) { storage in
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_credentials", on: storage) == [2])
                    for name in ["orders", "billing"] {
                        let store = PostgresCredentialStore(storage: storage, name: name)
                        try await store.reload()
                        #expect(store.credential == nil, "\(name)")
                    }
                }
                // And a process without the key never takes a sealed text
                // for its token.
                try await withStorage(postgres) { clear in
                    let store = PostgresCredentialStore(storage: clear, name: "billing")
                    try await store.reload()
                    #expect(store.credential == nil)
                }
            }
        }

        /// A cache body written without the key, or under another key, put in
        /// the row the fleet's key names: a miss, never served.
        @Test(arguments: [false, true])
        func aCacheBodyWrittenWithoutTheKeyOrUnderAnotherIsAMiss(underAnotherKey: Bool) async throws {
            try await withTemporaryPostgres { postgres in
                let plantingKey = underAnotherKey ? try FleetKey(base64: FleetKey.generate()) : nil
                try await withStorage(postgres, fleetKey: plantingKey) { planting in
                    let cache = PostgresResponseCache(storage: planting, configuration: patient)
                    cache.store(entry("planted"), forKey: "k1")
                    await cache.waitForPendingWrites()
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache", on: planting) == [1])
                    try await execute("CREATE TABLE planted AS SELECT key_digest, body FROM courier_cache", on: planting)
                }
                try await withStorage(postgres, fleetKey: try Self.fleetKey()) { storage in
                    let cache = PostgresResponseCache(storage: storage, configuration: patient)
                    #expect(cache.entry(forKey: "k1") == nil, "the planted row is named otherwise")
                    cache.store(entry("mine"), forKey: "k1")
                    await cache.waitForPendingWrites()
                    #expect(cache.entry(forKey: "k1")?.body == Data("mine".utf8))
                    try await execute("""
                        UPDATE courier_cache SET body = (SELECT body FROM planted)
                        WHERE key_digest NOT IN (SELECT key_digest FROM planted)
                        """, on: storage)
                    #expect(cache.entry(forKey: "k1") == nil)
                    try await execute("DROP TABLE planted", on: storage)
                }
            }
        }

        /// Every column a hit reads is bound to the sealed body: a row changed
        /// in the table is a miss, never served, and is deleted. Cache rows are
        /// named by a keyed hash, so nobody can look a guessed key up.
        @Test func aCacheRowChangedInTheTableIsAMissNeverServed() async throws {
            try await withTemporaryPostgres { postgres in
                try await withTwoStorages(postgres, fleetKey: try Self.fleetKey()) { first, second in
                    let mine = PostgresResponseCache(storage: first, configuration: patient)
                    let theirs = PostgresResponseCache(storage: second, configuration: patient)
                    let changes = [
                        "status": "status = 201",
                        "headers": "headers = convert_to('{\"Content-Type\":\"text/html\"}', 'UTF8')",
                        "expiry": "expires_at = 9999999999",
                        "url": "url = 'https://evil.example/'",
                        "body": "body = (SELECT body FROM courier_cache ORDER BY key_digest LIMIT 1)",
                    ]
                    for key in changes.keys { mine.store(entry("the body of \(key)", key: key), forKey: key) }
                    await mine.waitForPendingWrites()
                    for key in changes.keys { #expect(theirs.entry(forKey: key)?.body == Data("the body of \(key)".utf8)) }
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache WHERE key_digest IN "
                        + "(\(changes.keys.map { "sha256(convert_to('\($0)', 'UTF8'))" }.joined(separator: ", ")))", on: first) == [0],
                            "no row is named by the plain SHA-256 of its key")
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache WHERE position(convert_to('the body', 'UTF8') in body) > 0", on: first) == [0], "no body in clear")

                    // Each row changed in one column: the bodies are sealed, so
                    // rows can only be told apart by trying them all.
                    try await execute("UPDATE courier_cache SET \(changes["status"]!)", on: first)
                    for key in changes.keys { #expect(theirs.entry(forKey: key) == nil, "\(key) after its status changed") }
                    await theirs.waitForPendingWrites()
                    #expect(try await integers("SELECT count(*)::bigint FROM courier_cache", on: first) == [0], "bad rows are deleted")

                    for (column, change) in changes where column != "status" {
                        mine.store(entry("the body of \(column)", key: column), forKey: column)
                        await mine.waitForPendingWrites()
                        #expect(theirs.entry(forKey: column) != nil)
                        if column == "body" {
                            // Another row's sealed body in this one.
                            mine.store(entry("another body", key: "other"), forKey: "other")
                            await mine.waitForPendingWrites()
                            try await execute("UPDATE courier_cache SET body = (SELECT body FROM courier_cache c "
                                + "WHERE c.key_digest <> courier_cache.key_digest LIMIT 1)", on: first)
                        } else {
                            try await execute("UPDATE courier_cache SET \(change)", on: first)
                        }
                        #expect(theirs.entry(forKey: column) == nil, "\(column) changed in the table")
                        mine.removeAll()
                        await mine.waitForPendingWrites()
                    }
                }
            }
        }

        @Test func aKeyThatIsNot32BytesIsRefusedWithAReason() {
            #expect(throws: PostgresStorageError.invalidFleetKey("it is 16 bytes long, not 32")) {
                try FleetKey(bytes: Data(count: 16))
            }
            #expect(throws: PostgresStorageError.invalidFleetKey("it is not Base64")) {
                try FleetKey(base64: "not base64!")
            }
            #expect("\(PostgresStorageError.invalidFleetKey("it is not Base64"))".contains("FleetKey.generate()"))
            #expect((try? FleetKey(base64: FleetKey.generate())) != nil)
        }
    }
}
