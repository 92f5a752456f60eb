import Foundation

/// Items 1 and 2: requests per second over loopback, sequential and concurrent.
struct HTTPBenchmarks {
    let clients: ClientSet
    /// The HTTPS pair's clients, against a second server that speaks TLS.
    let secureClients: SecureClientSet?
    let quick: Bool
    /// Only pairs whose name contains this (`--pair`), or every pair.
    var pairFilter: String?
    /// Said after each pair's name when the server is not the in-process one
    /// (`"nginx"`).
    var serverName: String?

    private var rounds: Int { quick ? 3 : 7 }

    func run() async throws -> [Row] {
        var rows: [Row] = []
        let suffix = serverName.map { " (\($0))" } ?? ""
        for pair in clients.pipelinePairs where selected("pipeline \(pair.name)") {
            rows += try await measure(pair, label: "pipeline \(pair.name)\(suffix)", concurrencies: [1, 32, 64])
        }
        for pair in clients.transportPairs where selected(pair.name) {
            rows += try await measure(pair, label: pair.name + suffix, concurrencies: [1, 32])
        }
        for pair in secureClients?.pairs ?? [] where selected(pair.name) {
            rows += try await measure(pair, label: pair.name, concurrencies: [1, 32])
        }
        if !SecureClientSet.urlSessionTrustsRoot, selected("URLSessionTransport vs URLSession, HTTPS") {
            log("  URLSessionTransport vs URLSession, HTTPS: not measured (URLSession trusts the system's roots only; "
                + "run under Tests/with-test-root-trusted, which adds the tests' root to them)")
        }
        return rows
    }

    private func selected(_ name: String) -> Bool {
        pairFilter.map(name.contains) ?? true
    }

    /// Runs `body` on a client made for it (see `ClientPair`), its pool
    /// warmed up first, and shuts the client down however `body` ends.
    private func withWarmClient<Result>(_ make: ClientFactory,
                                        _ body: (@escaping BenchOperation) async throws -> Result) async throws -> Result {
        let client = make()
        do {
            _ = try await throughput(total: 200, concurrency: 64, client.operation)
            let result = try await body(client.operation)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private func measure(_ pair: ClientPair, label: String, concurrencies: [Int]) async throws -> [Row] {
        var rows: [Row] = []
        for concurrency in concurrencies {
            let total = concurrency == 1 ? (quick ? 300 : 1_000) : (quick ? 1_000 : 4_000)
            // CPU time of the whole process (client, server, runtime) per
            // request, sampled in the same rounds: steadier than wall time on
            // a shared machine, and what a busy server pays.
            var courierCPU: [Double] = []
            var bareCPU: [Double] = []
            var bareAgainCPU: [Double] = []
            func run(_ make: ClientFactory, cpu: inout [Double]) async throws -> Double {
                try await withWarmClient(make) { operation in
                    let start = processCPUSeconds()
                    let rate = try await throughput(total: total, concurrency: concurrency, operation)
                    cpu.append((processCPUSeconds() - start) / Double(total) * 1e6)
                    return rate
                }
            }
            let result = try await interleaved(
                rounds: rounds,
                courier: { try await run(pair.courier, cpu: &courierCPU) },
                bare: { try await run(pair.bare, cpu: &bareCPU) },
                bareAgain: { try await run(pair.bare, cpu: &bareAgainCPU) }
            )
            let mode = concurrency == 1 ? "sequential" : "\(concurrency) concurrent"
            let row = Row(name: "\(label), \(mode)", unit: "req/s", courier: result.courier, bare: result.bare,
                          bareAgain: result.bareAgain, higherIsBetter: true)
            let cpuRow = Row(name: "\(label), \(mode), CPU per request", unit: "us", courier: median(courierCPU),
                             bare: median(bareCPU), bareAgain: median(bareAgainCPU), higherIsBetter: false)
            log("  \(row.name): \(Int(row.courier)) vs \(Int(row.bare)) req/s, \(Int(cpuRow.courier)) vs \(Int(cpuRow.bare)) us CPU")
            rows += [row, cpuRow]
        }
        // Exact, whatever the machine's load: every allocation in the process
        // (client, runtime and the in-process server alike) per sequential request.
        func countAllocations(_ make: ClientFactory) async throws -> Double {
            try await withWarmClient(make) { try await allocationsPerCall(quick ? 200 : 1_000, $0) }
        }
        let allocations = try await interleaved(
            rounds: 3,
            courier: { try await countAllocations(pair.courier) },
            bare: { try await countAllocations(pair.bare) },
            bareAgain: { try await countAllocations(pair.bare) }
        )
        rows.append(Row(name: "\(label), allocations per request", unit: "allocs", courier: allocations.courier,
                        bare: allocations.bare, bareAgain: allocations.bareAgain, higherIsBetter: false))
        return rows
    }
}
