import CourierCache
import CourierPostgres
import Crypto
import Foundation
import PostgresNIO

/// Item 8: CourierPostgres. A cache hit through `PostgresResponseCache`
/// against the same statement run with postgres-nio directly (the hit is one
/// `UPDATE … RETURNING` that marks the row used): wall time per hit, then
/// this process's CPU and allocations per hit (the database's are outside
/// it); and a fleet of 8 processes
/// (the root package's `Fleet` example) whose tokens all expired, end to end
/// from "go" to every worker's answer, against the same fleet with a valid
/// token (no refresh).
///
/// The database: `COURIER_BENCH_POSTGRES` (a connection string), or a
/// temporary server that `Fleet --serve-database` starts. `Fleet` is looked
/// for in the root package's `.build/release` then `.build/debug`, or at
/// `COURIER_FLEET`: build it first (`swift build -c release --product Fleet`).
struct PostgresBenchmark {
    let quick: Bool

    func run() async throws -> [Row] {
        let fleet = try Self.fleetExecutable()
        var server: (process: Process, input: Pipe)?
        let database: String
        if let given = ProcessInfo.processInfo.environment["COURIER_BENCH_POSTGRES"] {
            database = given
        } else {
            let served = try Self.serveDatabase(fleet)
            server = (served.process, served.input)
            database = served.database
        }
        // The server stops when its input closes. Not with `terminate()`: a
        // child started from a Dispatch thread inherits that thread's blocked
        // signals, SIGTERM among them.
        defer {
            if let server {
                try? server.input.fileHandleForWriting.close()
                server.process.waitUntilExit()
            }
        }
        log("  database: \(database)")
        var rows = try await cacheHit(database: database)
        rows.append(try await sealedCacheHit(database: database))
        rows.append(try await fleetRefresh(fleet, database: database))
        return rows
    }

    // MARK: - Cache hit

    private func cacheHit(database: String) async throws -> [Row] {
        let storage = try PostgresStorage(connectionString: database, maximumConnections: 4)
        let pool = Task { await storage.run() }
        defer { pool.cancel() }
        let cache = PostgresResponseCache(storage: storage, configuration: .init(sizeLimit: .max, timeout: .seconds(5)))
        cache.removeAll()
        let keys = (0..<1_000).map { "GET http://127.0.0.1/items/\($0)" }
        for (index, key) in keys.enumerated() {
            cache.store(CachedResponse(key: key, statusCode: 200, headers: ["Content-Type": "application/json"],
                                       body: Payload.json, url: nil, storedAt: Date(), expiresAt: nil), forKey: key)
            // The cache drops writes past its queue's limit: fill it in batches.
            if index % 32 == 31 { await cache.waitForPendingWrites() }
        }
        await cache.waitForPendingWrites()
        let digests = keys.map { Data(SHA256.hash(data: Data($0.utf8))) }
        let lookups = quick ? 500 : 1_000
        var generator = SplitMix(seed: 11)
        let sample = (0..<lookups).map { _ in Int(generator.next() % UInt64(keys.count)) }
        guard cache.entry(forKey: keys[0]) != nil else { throw BenchFailure("the PostgreSQL cache did not store its entries") }

        let courierHits: BenchOperation = { for index in sample { blackHole(cache.entry(forKey: keys[index])) } }
        let bareHits: BenchOperation = { try await Self.bareHits(storage.client, digests: digests, sample: sample) }
        let rounds = quick ? 3 : 15
        // Wall time per hit (the target), then the client's CPU per hit and
        // its allocations per hit, which the machine's load moves less.
        let time = try await interleaved(rounds: rounds, courier: { try await seconds(courierHits) * 1e6 / Double(lookups) },
                                         bare: { try await seconds(bareHits) * 1e6 / Double(lookups) })
        let cpu = try await interleaved(rounds: rounds, courier: { try await Self.cpuSeconds(courierHits) * 1e6 / Double(lookups) },
                                        bare: { try await Self.cpuSeconds(bareHits) * 1e6 / Double(lookups) })
        let name = "PostgreSQL cache hit, 1000 entries (vs the same statement on postgres-nio)"
        return [
            Row(name: name, unit: "us", courier: time.courier, bare: time.bare, bareAgain: time.bareAgain, higherIsBetter: false),
            Row(name: "\(name), CPU per hit", unit: "us", courier: cpu.courier, bare: cpu.bare, bareAgain: cpu.bareAgain,
                higherIsBetter: false),
            Row(name: "\(name), allocations per hit", unit: "allocs",
                courier: try await allocationsPerCall(1, courierHits) / Double(lookups),
                bare: try await allocationsPerCall(1, bareHits) / Double(lookups), higherIsBetter: false),
        ]
    }

    // MARK: - Cache hit with a fleet key

    /// A hit on a cache whose rows are sealed under a fleet key (the body
    /// opened with AES-GCM, the row named by HMAC-SHA256) against a hit on
    /// the same rows stored without one: what the key costs this process, in
    /// CPU per hit.
    private func sealedCacheHit(database: String) async throws -> Row {
        func filledCache(_ key: FleetKey?) async throws -> (PostgresStorage, PostgresResponseCache, Task<Void, Never>) {
            var configuration = try PostgresStorage.Configuration(connectionString: database, maximumConnections: 4)
            configuration.fleetKey = key
            let storage = PostgresStorage(configuration: configuration)
            let pool = Task { await storage.run() }
            let cache = PostgresResponseCache(storage: storage, configuration: .init(sizeLimit: .max, timeout: .seconds(5)))
            for index in 0..<1_000 {
                let name = "GET http://127.0.0.1/\(key == nil ? "clear" : "sealed")/\(index)"
                cache.store(CachedResponse(key: name, statusCode: 200, headers: ["Content-Type": "application/json"],
                                           body: Payload.json, url: nil, storedAt: Date(), expiresAt: nil), forKey: name)
                if index % 32 == 31 { await cache.waitForPendingWrites() }
            }
            await cache.waitForPendingWrites()
            return (storage, cache, pool)
        }
        let (_, clear, clearPool) = try await filledCache(nil)
        let (_, sealed, sealedPool) = try await filledCache(try FleetKey(base64: FleetKey.generate()))
        defer {
            clearPool.cancel()
            sealedPool.cancel()
        }
        let lookups = quick ? 500 : 1_000
        var generator = SplitMix(seed: 13)
        let sample = (0..<lookups).map { _ in Int(generator.next() % 1_000) }
        guard sealed.entry(forKey: "GET http://127.0.0.1/sealed/0") != nil, clear.entry(forKey: "GET http://127.0.0.1/clear/0") != nil
        else {
            throw BenchFailure("the PostgreSQL caches with and without a key did not store their entries")
        }
        let sealedHits: BenchOperation = { for index in sample { blackHole(sealed.entry(forKey: "GET http://127.0.0.1/sealed/\(index)")) } }
        let clearHits: BenchOperation = { for index in sample { blackHole(clear.entry(forKey: "GET http://127.0.0.1/clear/\(index)")) } }
        let cpu = try await interleaved(rounds: quick ? 3 : 15,
                                        courier: { try await Self.cpuSeconds(sealedHits) * 1e6 / Double(lookups) },
                                        bare: { try await Self.cpuSeconds(clearHits) * 1e6 / Double(lookups) })
        return Row(name: "PostgreSQL cache hit with a fleet key, CPU per hit (vs the same cache without one)", unit: "us",
                   courier: cpu.courier, bare: cpu.bare, bareAgain: cpu.bareAgain, higherIsBetter: false)
    }

    /// CPU seconds this process spends, on every thread, while `body` runs.
    private static func cpuSeconds(_ body: BenchOperation) async throws -> Double {
        let before = processCPUSeconds()
        try await body()
        return processCPUSeconds() - before
    }

    /// The statement `PostgresResponseCache` runs for a hit, its columns
    /// decoded, with postgres-nio and nothing else, for each of `sample`.
    private static func bareHits(_ client: PostgresClient, digests: [Data], sample: [Int]) async throws {
        for index in sample {
            let now = Date().timeIntervalSince1970
            let digest = digests[index]
            let rows = try await client.query("""
                UPDATE courier_cache SET used_at = \(now) WHERE key_digest = \(ByteBuffer(bytes: digest)) \
                AND (expires_at IS NULL OR expires_at > \(now)) \
                RETURNING status, headers, body, body_length, url, stored_at, expires_at, vary
                """)
            for try await row in rows.decode((Int32, Data, Data, Int32, String?, Double, Double?, Data).self) {
                blackHole(row)
            }
        }
    }

    // MARK: - Fleet refresh

    /// Each run is a fleet of its own (a coordinator and 8 workers), in the
    /// rounds and orders of `interleaved`.
    private func fleetRefresh(_ fleet: URL, database: String) async throws -> Row {
        let result = try await interleaved(rounds: quick ? 3 : 9,
                                           courier: { try Self.fleetRun(fleet, database: database, fresh: false) },
                                           bare: { try Self.fleetRun(fleet, database: database, fresh: true) })
        return Row(name: "fleet of 8 processes, expired token: one refresh (vs a valid token)", unit: "ms",
                   courier: result.courier, bare: result.bare, bareAgain: result.bareAgain, higherIsBetter: false)
    }

    /// One fleet run; milliseconds from "go" to the last worker's answer.
    private static func fleetRun(_ fleet: URL, database: String, fresh: Bool) throws -> Double {
        let output = try run(fleet, ["--workers", "8", "--requests", "1", "--refresh-delay", "0", "--database", database]
            + (fresh ? ["--fresh"] : []))
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("elapsed-ms ") }),
              let milliseconds = Double(line.dropFirst("elapsed-ms ".count)) else {
            throw BenchFailure("Fleet printed no elapsed time: \(output)")
        }
        if !fresh, !output.contains("refreshes: 1 ") { throw BenchFailure("the fleet did not refresh exactly once: \(output)") }
        return milliseconds
    }

    // MARK: - Helpers

    private static func fleetExecutable() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
        let candidates = [ProcessInfo.processInfo.environment["COURIER_FLEET"]].compactMap { $0 }
            + [".build/release/Fleet", ".build/debug/Fleet"].map { root.appendingPathComponent($0).path }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BenchFailure("no Fleet executable in \(candidates): run swift build -c release --product Fleet in the root")
        }
        return URL(fileURLWithPath: found)
    }

    /// Starts `Fleet --serve-database` and returns it with its input and the
    /// connection string it printed; it stops its server when its input
    /// closes.
    private static func serveDatabase(_ fleet: URL) throws -> (process: Process, input: Pipe, database: String) {
        let process = Process()
        process.executableURL = fleet
        process.arguments = ["--serve-database"]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchFailure("Fleet --serve-database stopped: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("database ") else {
            throw BenchFailure("Fleet --serve-database printed \(text)")
        }
        return (process, input, String(line.dropFirst("database ".count)))
    }

    private static func run(_ executable: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why the PostgreSQL item could not run.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
