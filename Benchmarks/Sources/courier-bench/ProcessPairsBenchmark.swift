import Foundation

/// Item 2b: requests per second against nginx with each client in a process
/// of its own (this executable re-run with `--profile … --nginx --report`),
/// so no client shares a process, its event loops or its allocator with the
/// other. Seven rounds of Courier, the bare client and the bare client again
/// (the noise floor), in a new random order each round.
struct ProcessPairsBenchmark {
    let quick: Bool

    func run() throws -> [Row] {
        var rows: [Row] = []
        for pair in ["pipeline URLSession", "pipeline AsyncHTTPClient"] {
            for concurrency in [1, 32] {
                let total = concurrency == 1 ? (quick ? 500 : 2_000) : (quick ? 2_000 : 8_000)
                var rates: [String: [Double]] = [:]
                var cpu: [String: [Double]] = [:]
                for _ in 0..<(quick ? 3 : 7) {
                    for side in ["courier", "bare", "bare again"].shuffled() {
                        let (rate, microseconds) = try child(pair, side: side == "courier" ? "courier" : "bare",
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
                log("  \(label): courier \(rates["courier"]?.map { Int($0) } ?? []), bare \(rates["bare"]?.map { Int($0) } ?? []), "
                    + "bare again \(rates["bare again"]?.map { Int($0) } ?? [])")
            }
        }
        return rows
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
