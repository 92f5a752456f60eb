import CMallocCounter
import Foundation

// MARK: - Rows

/// One measured pair: Courier against the bare thing it wraps.
struct Row: Codable, Sendable {
    var name: String
    var unit: String
    var courier: Double
    var bare: Double
    /// `courier / bare`: above 1 is slower when lower is better, faster when
    /// higher is better; `nil` when the bare side is 0 and Courier's is not
    /// (no ratio says that; the table prints "n/a").
    var ratio: Double?
    var higherIsBetter: Bool
    /// The noise floor: the bare side measured a second time, in the same
    /// interleaved rounds, against itself (`bare again / bare`). A Courier
    /// ratio no further from 1 than this is no measurable cost.
    var noise: Double?

    init(name: String, unit: String, courier: Double, bare: Double, bareAgain: Double? = nil, higherIsBetter: Bool) {
        self.name = name
        self.unit = unit
        self.courier = courier
        self.bare = bare
        // Nothing on both sides (no allocations) is the same: 1.
        self.ratio = bare == 0 ? (courier == 0 ? 1 : nil) : courier / bare
        self.higherIsBetter = higherIsBetter
        self.noise = bareAgain.map { bare == 0 ? 0 : $0 / bare }
    }

    /// What the ratio says against the noise floor: within it, a cost
    /// beyond it, or faster beyond it (blank without a floor). A floor under
    /// 1% counts as 1%.
    var verdict: String {
        guard let noise, let ratio else { return "" }
        let floor = max(abs(noise - 1), 0.01)
        guard abs(ratio - 1) > floor else { return "within noise" }
        return overheadPercent > 0 ? "cost" : "faster"
    }

    /// How much worse Courier is, in percent (negative when it is better).
    var overheadPercent: Double {
        guard let ratio else { return 0 }
        return higherIsBetter ? (1 / ratio - 1) * 100 : (ratio - 1) * 100
    }
}

// MARK: - Interleaving

/// Runs `rounds` rounds of each side, rotating which goes first, so machine
/// drift hits every side alike, and returns each side's median. The bare side
/// runs twice per round (`bareAgain`, when given, measures that second run):
/// the two bare medians give the pair's noise floor.
func interleaved(
    rounds: Int,
    courier: () async throws -> Double,
    bare: () async throws -> Double,
    bareAgain: (() async throws -> Double)? = nil
) async throws -> (courier: Double, bare: Double, bareAgain: Double) {
    var samples: [[Double]] = [[], [], []]
    for round in 0..<rounds {
        for side in sideOrder(round) {
            switch side {
            case 0: samples[0].append(try await courier())
            case 1: samples[1].append(try await bare())
            default:
                if let bareAgain {
                    samples[2].append(try await bareAgain())
                } else {
                    samples[2].append(try await bare())
                }
            }
        }
    }
    return (median(samples[0]), median(samples[1]), median(samples[2]))
}

/// The order of the three sides (0 Courier, 1 bare, 2 bare again) in a
/// round: C B B', B' C B, B B' C, then the same orders backwards.
func sideOrder(_ round: Int) -> [Int] {
    let order = [0, 1, 2]
    let rotated = Array(order[(round % 3)...] + order[..<(round % 3)])
    return round / 3 % 2 == 1 ? rotated.reversed() : rotated
}

/// Seconds per run of each side, in the rounds and orders of `interleaved`:
/// for work that does not suspend (a cache lookup, a zlib call).
func interleavedSeconds(
    rounds: Int,
    courier: () throws -> Void,
    bare: () throws -> Void
) rethrows -> (courier: Double, bare: Double, bareAgain: Double) {
    let clock = ContinuousClock()
    func time(_ body: () throws -> Void) rethrows -> Double {
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
    var samples: [[Double]] = [[], [], []]
    for round in 0..<rounds {
        for side in sideOrder(round) {
            samples[side].append(side == 0 ? try time(courier) : try time(bare))
        }
    }
    return (median(samples[0]), median(samples[1]), median(samples[2]))
}

/// Allocations per call, counted by the `CMallocCounter` interposer (every
/// allocation in the process, so run it with nothing else going on).
/// Allocations made while `body` runs (once, synchronously).
func allocations(_ body: () throws -> Void) rethrows -> Double {
    let before = courier_bench_allocation_count()
    try body()
    return Double(courier_bench_allocation_count() - before)
}

/// What the second half of a `--profile` run allocated and kept: a side
/// whose heap grows with every request shows here, where its peak memory
/// alone would need two runs of different lengths to tell.
struct ProfileMemory: CustomStringConvertible {
    var requests: Int
    /// Calls of malloc and its kin while those requests ran.
    var allocations: UInt64
    /// Bytes in use on the heap before and after those requests.
    var heapBefore: UInt64
    var heapAfter: UInt64
    /// The process's peak resident memory (VmHWM).
    var peakKilobytes: Int

    /// What `body`, which makes `requests` requests, allocates and keeps.
    static func measuring(requests: Int, _ body: () async throws -> Void) async rethrows -> ProfileMemory {
        let heapBefore = courier_bench_heap_in_use()
        let allocationsBefore = courier_bench_allocation_count()
        try await body()
        return ProfileMemory(requests: requests, allocations: courier_bench_allocation_count() - allocationsBefore,
                             heapBefore: heapBefore, heapAfter: courier_bench_heap_in_use(), peakKilobytes: peakResidentKilobytes())
    }

    var description: String {
        let requests = Double(max(requests, 1))
        let grown = Double(Int64(bitPattern: heapAfter &- heapBefore))
        return String(format: "second half, %d requests: %.1f allocations a request; heap in use %+.0f bytes (%+.1f a request); peak resident %.1f MB",
                      self.requests, Double(allocations) / requests, grown, grown / requests, Double(peakKilobytes) / 1024)
    }
}

/// A child process of the benchmark that failed, with what it printed.
struct ChildFailure: Error, CustomStringConvertible {
    var side: String
    var output: String
    var description: String { "child '\(side)' failed: \(output)" }
}

func allocationsPerCall(_ count: Int, _ operation: BenchOperation) async throws -> Double {
    let before = courier_bench_allocation_count()
    for _ in 0..<count { try await operation() }
    return Double(courier_bench_allocation_count() - before) / Double(count)
}

/// Writes a backtrace of each allocation one call of `operation` makes
/// to `path`, for finding where a side's allocations come from.
func traceAllocations(of operation: BenchOperation, to path: String) async throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return }
    courier_bench_trace_allocations(descriptor)
    // Tracing stops before the file closes, whatever the operation does.
    defer {
        courier_bench_trace_allocations(-1)
        close(descriptor)
    }
    try await operation()
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// Seconds taken by `body`.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try await clock.measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// CPU seconds this process has used, on every thread.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Requests per second for `total` calls of `operation`, `concurrency` at a time.
func throughput(
    total: Int,
    concurrency: Int,
    _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Double {
    let elapsed = try await seconds {
        if concurrency <= 1 {
            for _ in 0..<total { try await operation() }
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            while started < min(concurrency, total) {
                group.addTask { try await operation() }
                started += 1
            }
            while try await group.next() != nil {
                if started < total {
                    group.addTask { try await operation() }
                    started += 1
                }
            }
        }
    }
    return Double(total) / elapsed
}

/// The outcome of `body`, so a client can be shut down before an error is rethrown.
func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

// MARK: - Output

enum Report {
    static func table(_ rows: [Row]) -> String {
        let header = ["name", "unit", "courier", "bare", "ratio", "bare/bare", "verdict"]
        let cells = rows.map { row in
            [row.name, row.unit, format(row.courier), format(row.bare), row.ratio.map { String(format: "%.3f", $0) } ?? "n/a",
             row.noise.map { String(format: "%.3f", $0) } ?? "", row.verdict]
        }
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                index < 2 || index == 6 ? value.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - value.count) + value
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + cells.map(line)).joined(separator: "\n")
    }

    static func json(_ rows: [Row]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    private static func format(_ value: Double) -> String {
        switch abs(value) {
        case 1_000...: String(format: "%.0f", value)
        case 10...: String(format: "%.1f", value)
        default: String(format: "%.3f", value)
        }
    }
}

/// Progress lines go to stderr so `--json` output stays parseable.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Starts the peak resident memory (VmHWM) again from the current resident
/// size, so a measurement after other work in the process (a 100,000-entry
/// cache, a download) is not that work's peak. Linux only; elsewhere nothing.
func resetPeakResident() {
    #if os(Linux)
    let descriptor = open("/proc/self/clear_refs", O_WRONLY)
    guard descriptor >= 0 else {
        log("  peak memory mark not reset (/proc/self/clear_refs: errno \(errno)): the peak may be earlier work's")
        return
    }
    defer { close(descriptor) }
    _ = "5".withCString { write(descriptor, $0, 1) }
    #endif
}

/// The process's peak resident memory so far (`VmHWM` in /proc/self/status),
/// in KiB; 0 where there is no /proc.
func peakResidentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
