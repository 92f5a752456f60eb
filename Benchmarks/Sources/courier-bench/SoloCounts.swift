import Foundation

/// Each side of each in-process HTTP pair alone, in a child of its own
/// (`--profile`): the child's CPU time per request and, where the machine
/// counts them, instructions per request (`perf stat -e instructions`). Each
/// side runs twice with different request counts, so the child's start-up
/// (server, clients, runtime) cancels out of the difference.
///
/// The interleaved rows measure both sides in one process, where one side's
/// leftovers (a connection closing, a timer) can land in the other's round;
/// here nothing else runs. The child has the in-process server in it, so its
/// CPU counts on both sides and brings the ratio towards 1. Instructions do not depend on the machine's load,
/// like allocations; virtual machines often have no hardware counters
/// (`perf stat` then says `<not supported>`), and the benchmark says so.
enum SoloCounts {
    /// Pairs measured, by the names `--profile` accepts, and how many
    /// requests each runs at a time: the pipeline at 64 (what a busy client
    /// does), the transports at 32.
    static let pairs: [(name: String, concurrency: Int)] = [
        ("pipeline URLSession", 64), ("pipeline AsyncHTTPClient", 64),
        ("URLSessionTransport vs URLSession", 32), ("AsyncHTTPClientTransport vs AsyncHTTPClient", 32),
    ]

    static func run(quick: Bool) throws -> [Row] {
        let counter = instructionCounterUnavailability()
        if let counter { log("  instructions per request: not counted (\(counter))") }
        var rows: [Row] = []
        for pair in pairs {
            let (small, large) = quick ? (400, 2_400) : (1_000, 9_000)
            func perRequest(_ side: String) throws -> (cpu: Double, instructions: Double?) {
                let few = try child(pair.name, side, small, pair.concurrency, countInstructions: counter == nil)
                let many = try child(pair.name, side, large, pair.concurrency, countInstructions: counter == nil)
                let requests = Double(large - small)
                var instructions: Double?
                if let many = many.instructions, let few = few.instructions { instructions = (many - few) / requests }
                return ((many.cpu - few.cpu) / requests * 1e6, instructions)
            }
            let courier = try perRequest("courier")
            let bare = try perRequest("bare")
            let bareAgain = try perRequest("bare")
            let label = "\(pair.name), \(pair.concurrency) concurrent, alone"
            log("  \(label): \(Int(courier.cpu)) vs \(Int(bare.cpu)) us CPU per request")
            rows.append(Row(name: "\(label), CPU per request", unit: "us", courier: courier.cpu, bare: bare.cpu,
                            bareAgain: bareAgain.cpu, higherIsBetter: false))
            if let courierInstructions = courier.instructions, let bareInstructions = bare.instructions {
                rows.append(Row(name: "\(label), instructions per request", unit: "instr",
                                courier: courierInstructions, bare: bareInstructions,
                                bareAgain: bareAgain.instructions, higherIsBetter: false))
            }
        }
        return rows
    }

    /// Why instructions cannot be counted here, or `nil` when they can.
    static func instructionCounterUnavailability() -> String? {
        guard let output = try? perfStat(["/bin/true"]) else {
            return "perf is not installed (Debian: linux-perf)"
        }
        if output.contains("<not supported>") || output.contains("<not counted>") {
            return "this machine has no hardware instruction counter: perf stat -e instructions says <not supported>; "
                + "Benchmarks/layers counts them with valgrind"
        }
        return instructions(in: output) == nil ? "perf stat printed no instruction count" : nil
    }

    /// One child: its CPU seconds (user and system) and, when asked, the
    /// instructions perf counted.
    private static func child(_ pair: String, _ side: String, _ requests: Int, _ concurrency: Int,
                              countInstructions: Bool) throws -> (cpu: Double, instructions: Double?) {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let command = [executable, "--profile", pair, side, String(requests), String(concurrency)]
        let before = childrenCPUSeconds()
        let output = try countInstructions ? perfStat(command) : runQuietly(command)
        let cpu = childrenCPUSeconds() - before
        // A run perf could not count (`<not counted>`) has no instruction row.
        return (cpu, countInstructions ? instructions(in: output) : nil)
    }

    /// CPU seconds of every child that has ended and been waited for.
    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Runs `command` under `perf stat -x, -e instructions` and returns what
    /// perf printed (on standard error).
    private static func perfStat(_ command: [String]) throws -> String {
        try runQuietly(["/usr/bin/env", "perf", "stat", "-x", ",", "-e", "instructions"] + command)
    }

    /// Runs `command`, waits for it, and returns its standard error.
    private static func runQuietly(_ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw ChildFailure(side: command.joined(separator: " "), output: text)
        }
        return text
    }

    /// The count in perf's CSV line for the instructions event
    /// (`12345,,instructions,...`, or `12345,,instructions:u,...`).
    static func instructions(in output: String) -> Double? {
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            // `instructions`, `instructions:u`, or `cpu_core/instructions/` on hybrid processors.
            guard fields.count > 2, fields[2].contains("instructions") else { continue }
            return Double(fields[0])
        }
        return nil
    }
}
