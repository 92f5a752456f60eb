import Courier
import CourierAuth
import CourierCache
import CourierPostgres
import Foundation

/// One process of the fleet: a provider with the auth and cache plugins on
/// the shared database. It prints `ready`, waits for `go` on its standard
/// input, makes its requests, and prints
/// `result token=… errors=… signedOut=…`.
///
/// With `--scenario hold`, its refresh closure prints `holding` and never
/// returns: the process holds the fleet's refresh lock until it is killed
/// or the refresh time-out passes.
enum Worker {
    static func run(_ arguments: FleetArguments) async throws {
        guard let database = arguments.database else {
            throw FleetFailure("a worker needs --database")
        }
        let storage = try FleetSecret.storage(database, maximumConnections: 4)
        let pool = Task { await storage.run() }
        defer { pool.cancel() }

        try await storage.prepare()
        let store = PostgresCredentialStore(storage: storage, name: "fleet-example",
                                            configuration: .init(refreshTimeout: arguments.refreshTimeout))
        try await store.reload()
        let cache = PostgresResponseCache(storage: storage, configuration: .init(timeout: .seconds(1)))
        let tokens = Provider<FleetAPI>()
        let hold = arguments.scenario == "hold"
        let auth = AuthPlugin(
            store: store,
            configuration: .init(refreshTimeout: arguments.refreshTimeout),
            refresh: store.sharedRefresh { credential in
                if hold {
                    say("holding")
                    try await Task.sleep(for: .seconds(3_600))
                }
                let answer = try await tokens.request(.refresh(credential.refreshToken ?? ""))
                let decoded = try JSONDecoder().decode(Tokens.self, from: answer.data)
                return Credential(accessToken: decoded.access_token, refreshToken: decoded.refresh_token, expiresIn: decoded.expires_in)
            }
        )
        let provider = Provider<FleetAPI>(plugins: [
            auth, CachePlugin(storage: cache, configuration: .init(defaultStrategy: .cacheIfPossible, lifetime: 60)),
        ])

        say("ready")
        while let line = readLine(), line != "go" {}

        var errors = 0
        for index in 0..<arguments.requests {
            do {
                _ = try await provider.request(.data(index))
            } catch {
                errors += 1
                FileHandle.standardError.write(Data("request \(index): \(error)\n".utf8))
            }
        }
        await cache.waitForPendingWrites()
        await store.waitForPendingWrites()
        let signedOut = store.credential == nil
        say("result token=\(store.accessToken ?? "none") errors=\(errors) signedOut=\(signedOut)")
    }
}

/// Writes a line to standard output at once: a pipe would hold a `print`
/// until the buffer fills, and the coordinator waits for the line.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A reason the example stops, printed as is.
struct FleetFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
