// The code of the CourierPostgres catalog. It needs a PostgreSQL to run, which
// CourierPostgresTests start; here it is compiled.

import Courier
import CourierAuth
import CourierCache
import CourierPostgres
import Foundation
import Logging
import ServiceLifecycle

private struct IdentityProvider: Sendable {
    func refresh(_ credential: Credential) async throws -> Credential { credential }
}

/// Compiled, never called.
private func runningAFleet(identityProvider: IdentityProvider, logger: Logger) async throws {
    let storage = try PostgresStorage(
        connectionString: "postgres://api@db.internal/api?sslmode=verify-full&sslrootcert=/etc/api/db-ca.pem")
    let credentials = PostgresCredentialStore(storage: storage, name: "orders-api")
    let cache = PostgresResponseCache(storage: storage)

    let provider = Provider<API>(plugins: [
        AuthPlugin(store: credentials, refresh: credentials.sharedRefresh { credential in
            try await identityProvider.refresh(credential)   // one process of the fleet runs this
        }),
        CachePlugin(storage: cache),
    ])

    let group = ServiceGroup(services: [storage, credentials], logger: logger)
    try await group.run()
    _ = provider
}

private struct Secrets: Sendable {
    let courierFleetKey = FleetKey.generate()
}

/// Compiled, never called: "A fleet key".
private func aFleetKey(databaseURL: String, secrets: Secrets) throws -> PostgresStorage {
    // Once: FleetKey.generate() gives 32 random bytes as Base64; keep them in your
    // secret store, and give them to every process of the fleet.
    var configuration = try PostgresStorage.Configuration(connectionString: databaseURL)
    configuration.fleetKey = try FleetKey(base64: secrets.courierFleetKey)
    let storage = PostgresStorage(configuration: configuration)
    return storage
}
