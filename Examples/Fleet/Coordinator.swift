import CourierAuth
import CourierFleetSupport
import CourierLoopback
import CourierPostgres
import Foundation

/// Runs the fleet: the database, the token server, the workers, and the count.
enum Coordinator {
    static func run(_ arguments: FleetArguments) async throws {
        // One key for the run, which the workers inherit: the tokens and
        // cache rows they share are sealed in the tables.
        if ProcessInfo.processInfo.environment[FleetSecret.variable] == nil {
            setenv(FleetSecret.variable, FleetKey.generate(), 1)
        }
        var temporary: TemporaryPostgres?
        let database: String
        if let given = arguments.database {
            database = given
        } else {
            let server = try TemporaryPostgres.start()
            temporary = server
            database = server.connectionString
            print("PostgreSQL: temporary server in \(server.directory.path)")
        }
        defer { temporary?.shutdown() }

        let server = try await LoopbackServer.start()
        let tokens = RotatingTokenServer(server: server, refreshDelay: arguments.refreshDelay)
        try await FleetSeed.credential(database: database, expired: !arguments.fresh)

        let executable = try WorkerProcess.fleetExecutable()
        let workers = try (0..<arguments.workers).map { _ in
            try WorkerProcess(executable: executable, arguments: [
                "--worker", "--database", database, "--server", server.baseURL.absoluteString,
                "--requests", String(arguments.requests),
            ])
        }
        for worker in workers { try await worker.waitForLine(startingWith: "ready", within: 60) }
        let started = Date()
        for worker in workers { worker.send("go") }
        var results: [String] = []
        for worker in workers {
            results.append(try await worker.waitForLine(startingWith: "result", within: 120))
            try await worker.waitForExit(within: 30)
        }
        let seconds = Date().timeIntervalSince(started)
        for (index, result) in results.enumerated() { print("worker \(index): \(result)") }
        print("workers: \(arguments.workers), requests each: \(arguments.requests), token \(arguments.fresh ? "valid" : "expired")")
        print("elapsed-ms \(String(format: "%.1f", seconds * 1_000))")
        print("refreshes: \(tokens.refreshes) (refused: \(tokens.refusedRefreshes))")
        print("cache misses (requests that reached the server): \(tokens.dataRequests) of \(arguments.workers * arguments.requests)")
        await server.shutdown()
    }
}

extension Coordinator {
    /// Starts a temporary PostgreSQL, prints `database <connection string>`,
    /// and stops it once standard input closes.
    static func serveDatabase() throws {
        let server = try TemporaryPostgres.start()
        defer { server.shutdown() }
        say("database \(server.connectionString)")
        while readLine() != nil {}
    }
}

/// Puts the fleet's starting credential in the database: the token server's
/// first tokens, the access token already expired (or, with `--fresh`, valid),
/// and an empty cache.
enum FleetSeed {
    static func credential(database: String, expired: Bool) async throws {
        let storage = try FleetSecret.storage(database, maximumConnections: 1)
        let pool = Task { await storage.run() }
        defer { pool.cancel() }
        let store = PostgresCredentialStore(storage: storage, name: "fleet-example")
        try await store.persist(Credential(
            accessToken: RotatingTokenServer.initialAccessToken, refreshToken: RotatingTokenServer.initialRefreshToken,
            expiresAt: Date(timeIntervalSinceNow: expired ? -60 : 3_600), issuedAt: Date(timeIntervalSinceNow: -3_660)
        ))
        // Every run starts from an empty cache, so runs on one database compare.
        PostgresResponseCache(storage: storage, configuration: .init(timeout: .seconds(10))).removeAll()
    }
}

/// The fleet's key (``FleetKey``), which every process of one run shares
/// through the environment, as a deployment would give it from its secret
/// store.
enum FleetSecret {
    static let variable = "COURIER_FLEET_KEY"

    /// The storage on `database`, sealing with the key the environment holds.
    static func storage(_ database: String, maximumConnections: Int) throws -> PostgresStorage {
        var configuration = try PostgresStorage.Configuration(connectionString: database, maximumConnections: maximumConnections)
        if let key = ProcessInfo.processInfo.environment[variable] {
            configuration.fleetKey = try FleetKey(base64: key)
        }
        return PostgresStorage(configuration: configuration)
    }
}
