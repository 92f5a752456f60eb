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
    /// higher is better.
    var ratio: Double
    var higherIsBetter: Bool

    init(name: String, unit: String, courier: Double, bare: Double, higherIsBetter: Bool) {
        self.name = name
        self.unit = unit
        self.courier = courier
        self.bare = bare
        self.ratio = bare == 0 ? 0 : courier / bare
        self.higherIsBetter = higherIsBetter
    }

    /// How much worse Courier is, in percent (negative when it is better).
    var overheadPercent: Double {
        higherIsBetter ? (1 / ratio - 1) * 100 : (ratio - 1) * 100
    }
}

// MARK: - Interleaving

/// Runs `rounds` rounds of each side, alternating which goes first (ABBA), so
/// machine drift hits both alike, and returns each side's median.
func interleaved(
    rounds: Int,
    courier: () async throws -> Double,
    bare: () async throws -> Double
) async rethrows -> (courier: Double, bare: Double) {
    var courierSamples: [Double] = []
    var bareSamples: [Double] = []
    for round in 0..<rounds {
        if round.isMultiple(of: 2) {
            courierSamples.append(try await courier())
            bareSamples.append(try await bare())
        } else {
            bareSamples.append(try await bare())
            courierSamples.append(try await courier())
        }
    }
    return (median(courierSamples), median(bareSamples))
}

/// Allocations per call, counted by the `CMallocCounter` interposer (every
/// allocation in the process, so run it with nothing else going on).
func allocationsPerCall(_ count: Int, _ operation: BenchOperation) async throws -> Double {
    let before = courier_bench_allocation_count()
    for _ in 0..<count { try await operation() }
    return Double(courier_bench_allocation_count() - before) / Double(count)
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
        let header = ["name", "unit", "courier", "bare", "ratio"]
        let cells = rows.map { row in
            [row.name, row.unit, format(row.courier), format(row.bare), String(format: "%.3f", row.ratio)]
        }
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                index < 2 ? value.padding(toLength: widths[index], withPad: " ", startingAt: 0)
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

/// The process's peak resident memory so far (`VmHWM` in /proc/self/status),
/// in KiB; 0 where there is no /proc.
func peakResidentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
