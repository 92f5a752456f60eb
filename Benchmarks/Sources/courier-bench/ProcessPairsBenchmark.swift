import Foundation

/// Item 2b: requests per second against nginx with each client in a process
/// of its own (this executable re-run with `--profile … --nginx --report`),
/// so no client shares a process, its event loops or its allocator with the
/// other. Seven rounds (or `--rounds N`) of Courier, the bare client and the
/// bare client again (the noise floor), in a new random order each round.
///
/// A client process's speed is one draw: the same bare client, run eight
/// times in a row, made 5,141 to 7,211 requests a second at 32 concurrent.
/// With seven rounds the medians' floor can sit 15% from 1, wider than the
/// gap it is there to judge; `--rounds 31` narrows it, and each row's log
/// line adds a bootstrap interval for Courier's ratio.
struct ProcessPairsBenchmark {
    let quick: Bool
    var rounds: Int?
    var pairFilter: String?
    /// Adds a fourth side, the bare client's API that sees each chunk as it
    /// arrives (URLSession's `data(for:delegate:)`, AsyncHTTPClient's delegate
    /// API), decoding the payload like the others: what the rule that counts
    /// bytes as they arrive costs by itself.
    var delegateSide = false

    func run() throws -> [Row] {
        var rows: [Row] = []
        for pair in ["pipeline URLSession", "pipeline AsyncHTTPClient"] where pairFilter.map({ pair.contains($0) }) ?? true {
            for concurrency in [1, 32] {
                let total = concurrency == 1 ? (quick ? 500 : 2_000) : (quick ? 2_000 : 8_000)
                var rates: [String: [Double]] = [:]
                var cpu: [String: [Double]] = [:]
                for _ in 0..<(rounds ?? (quick ? 3 : 7)) {
                    for side in (["courier", "bare", "bare again"] + (delegateSide ? ["bare-delegate"] : [])).shuffled() {
                        let (rate, microseconds) = try child(pair, side: side == "bare again" ? "bare" : side,
                                                            total: total, concurrency: concurrency)
                        rates[side, default: []].append(rate)
                        cpu[side, default: []].append(microseconds)
                    }
                }
                let mode = concurrency == 1 ? "sequential" : "\(concurrency) concurrent"
                let label = "\(pair) (nginx, a process per client), \(mode)"
                rows.append(Row(name: label, unit: "req/s", courier: median(rates["courier"] ?? []),
                                bare: median(rates["bare"] ?? []), bareAgain: median(rates["bare again"] ?? []),
                                higherIsBetter: true))
                rows.append(Row(name: "\(label), CPU per request", unit: "us", courier: median(cpu["courier"] ?? []),
                                bare: median(cpu["bare"] ?? []), bareAgain: median(cpu["bare again"] ?? []),
                                higherIsBetter: false))
                if delegateSide {
                    rows.append(Row(name: "\(label), the bare client's per-chunk API", unit: "req/s",
                                    courier: median(rates["bare-delegate"] ?? []), bare: median(rates["bare"] ?? []),
                                    bareAgain: median(rates["bare again"] ?? []), higherIsBetter: true))
                    rows.append(Row(name: "\(label), the bare client's per-chunk API, CPU per request", unit: "us",
                                    courier: median(cpu["bare-delegate"] ?? []), bare: median(cpu["bare"] ?? []),
                                    bareAgain: median(cpu["bare again"] ?? []), higherIsBetter: false))
                    let delegateInterval = bootstrapInterval(rates["bare-delegate"] ?? [], rates["bare"] ?? [])
                    log("  \(label): 90% bootstrap interval, bare-delegate/bare \(format(delegateInterval.low))–\(format(delegateInterval.high))")
                }
                log("  \(label): courier \(rates["courier"]?.map { Int($0) } ?? []), bare \(rates["bare"]?.map { Int($0) } ?? []), "
                    + "bare again \(rates["bare again"]?.map { Int($0) } ?? [])")
                let interval = bootstrapInterval(rates["courier"] ?? [], rates["bare"] ?? [])
                let floorInterval = bootstrapInterval(rates["bare again"] ?? [], rates["bare"] ?? [])
                log("  \(label): 90% bootstrap interval of the median ratio: courier/bare "
                    + "\(format(interval.low))–\(format(interval.high)), bare again/bare \(format(floorInterval.low))–\(format(floorInterval.high))")
            }
        }
        return rows
    }

    /// The 5th and 95th percentiles of `median(a) / median(b)` over 2,000
    /// resamples of each side's rounds, with a fixed seed: how far the ratio
    /// of two medians moves with the rounds that happened to be drawn.
    private func bootstrapInterval(_ a: [Double], _ b: [Double]) -> (low: Double, high: Double) {
        guard !a.isEmpty, !b.isEmpty else { return (.nan, .nan) }
        var generator = SplitMix(seed: 29)
        func resample(_ values: [Double]) -> [Double] {
            values.indices.map { _ in values[Int(generator.next() % UInt64(values.count))] }
        }
        let ratios = (0..<2_000).map { _ in median(resample(a)) / median(resample(b)) }.sorted()
        return (ratios[ratios.count * 5 / 100], ratios[ratios.count * 95 / 100])
    }

    private func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    /// One side in a child process: its requests per second and CPU
    /// microseconds per request (the child's alone; nginx's are its own).
    private func child(_ pair: String, side: String, total: Int, concurrency: Int) throws -> (Double, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = ["--profile", pair, side, String(total), String(concurrency), "--nginx", "--report"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: output, as: UTF8.self).split(separator: " ")
            .compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            throw ChildFailure(side: "\(pair) \(side)", output: String(decoding: output, as: UTF8.self))
        }
        return (fields[0], fields[1])
    }
}
