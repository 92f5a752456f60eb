import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

#if !Postgres
#error("CourierPostgres needs the package trait \"Postgres\": add it to the traits of your Courier dependency.")
#endif

/// One PostgreSQL database shared by a fleet of processes: the connection
/// pool that ``PostgresCredentialStore`` and ``PostgresResponseCache`` use.
///
/// It holds a postgres-nio `PostgresClient` with a bounded number of
/// connections. Like the client, it works only while ``run()`` runs: start it
/// in a task of its own, or hand it to a swift-service-lifecycle
/// `ServiceGroup`, which runs it and stops it on a graceful shutdown.
///
/// ```swift
/// let storage = try PostgresStorage(connectionString: "postgres://courier:secret@db.internal/courier")
/// let credentials = PostgresCredentialStore(storage: storage, name: "orders-api")
/// let cache = PostgresResponseCache(storage: storage)
/// let group = ServiceGroup(services: [storage, credentials], logger: logger)
/// try await group.run()
/// ```
///
/// The tables are created on first use, idempotently and under a lock, so
/// processes starting together do not race (see ``schemaVersion``).
public final class PostgresStorage: Service, Sendable {
    /// The version of the tables this release reads and writes.
    ///
    /// Version 1 is three tables: `courier_schema` (one row,
    /// `component = 'courier'`, holding this number),
    /// `courier_credentials` (one row per credential name) and the unlogged
    /// `courier_cache` (one row per cached response). A database whose
    /// `courier_schema` holds another number is left untouched: the cache
    /// misses and the credential store throws
    /// ``PostgresStorageError/schemaVersionMismatch(found:expected:)``.
    public static let schemaVersion = 1

    /// The connection pool. Run it through ``run()``, not on its own.
    public let client: PostgresClient
    let logger: Logger
    /// The secret that seals tokens and cache rows, if the fleet has one.
    let fleetKey: FleetKey?
    private let schema = NIOLockedValueBox(SchemaState.unknown)

    /// Creates the storage from a configuration.
    /// - Parameters:
    ///   - configuration: Where the database is and how many connections
    ///     the pool may open.
    ///   - logger: Where the pool's background events go; none by default.
    public init(configuration: Configuration, logger: Logger = Logger(label: "courier.postgres", factory: { _ in SwiftLogNoOpLogHandler() })) {
        var client = configuration.client
        let schema = "\"" + configuration.schema.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        client.options.additionalStartupParameters.removeAll { $0.0 == "search_path" }
        client.options.additionalStartupParameters.append(("search_path", schema))
        self.client = PostgresClient(configuration: client, backgroundLogger: logger)
        self.logger = logger
        self.fleetKey = configuration.fleetKey
        if let warning = configuration.downgradeWarning {
            logger.warning("\(warning)")
        }
    }

    /// Creates the storage from a connection string such as
    /// `postgres://user:password@db.internal:5432/database?sslmode=verify-full`.
    /// - Parameters:
    ///   - connectionString: The database's URL; see
    ///     ``Configuration/init(connectionString:maximumConnections:trustRoots:)``.
    ///   - maximumConnections: The most connections the pool opens.
    ///   - logger: Where the pool's background events go, and the warning
    ///     about an `sslmode` that allows cleartext; none by default.
    /// - Throws: ``PostgresStorageError/invalidConnectionString(_:)``.
    public convenience init(connectionString: String, maximumConnections: Int = 8,
                            logger: Logger = Logger(label: "courier.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        throws(PostgresStorageError) {
        self.init(configuration: try Configuration(connectionString: connectionString, maximumConnections: maximumConnections),
                  logger: logger)
    }

    /// Runs the connection pool until the task is cancelled or a
    /// graceful shutdown begins. Nothing reaches the database before it runs.
    public func run() async {
        await client.run()
    }

    /// Creates the tables unless they exist and opens a connection, so that
    /// the first read of a cache does not pay for either (and, with a short
    /// time-out, miss). Call it once ``run()`` has started; it is optional.
    /// - Throws: The database's error, or
    ///   ``PostgresStorageError/schemaVersionMismatch(found:expected:)``.
    public func prepare() async throws {
        try await prepareSchema()
    }

    // MARK: - Schema

    private enum SchemaState: Sendable {
        case unknown
        case ready
        case mismatch(found: Int)
    }

    /// Creates the tables unless they exist, once per storage.
    /// - Throws: ``PostgresStorageError/schemaVersionMismatch(found:expected:)``,
    ///   ``PostgresStorageError/untrustedTables(_:)``, or the database's
    ///   error (then the next call tries again).
    func prepareSchema() async throws {
        switch schema.withLockedValue({ $0 }) {
        case .ready: return
        case .mismatch(let found): throw PostgresStorageError.schemaVersionMismatch(found: found, expected: Self.schemaVersion)
        case .unknown: break
        }
        let found: Int
        do {
            found = try await client.withTransaction(logger: logger) { connection in
                try await SchemaStatements.create(on: connection, logger: logger)
            }
        } catch let error as PostgresTransactionError {
            // Ours (untrusted tables) as it is, not wrapped.
            if let refusal = error.closureError as? PostgresStorageError { throw refusal }
            throw error
        }
        guard found == Self.schemaVersion else {
            schema.withLockedValue { $0 = .mismatch(found: found) }
            throw PostgresStorageError.schemaVersionMismatch(found: found, expected: Self.schemaVersion)
        }
        schema.withLockedValue { $0 = .ready }
    }
}
