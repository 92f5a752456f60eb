import CTSanDefaults
import Foundation
import Testing

/// The process's peak resident memory, from `/proc/self/status` (Linux).
///
/// The figure is the whole process's: beside a parallel run it counts every
/// other test's memory too. A bound on it means something only for a call
/// measured in a process of its own, which ``MeasuredAlone`` arranges.
public enum PeakMemory {
    /// Starts a new peak from the memory in use now (writes 5 to
    /// `/proc/self/clear_refs`).
    public static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The peak since the last reset, in MiB (`VmHWM`).
    public static var mebibytes: Int? { field("VmHWM:") }

    /// The resident memory now, in MiB (`VmRSS`).
    public static var residentMebibytes: Int? { field("VmRSS:") }

    /// A bound on growth, in MiB, for this build: `plain`, or under the
    /// thread sanitizer `sanitized` (twice `plain` unless given). The
    /// sanitizer's shadow memory for every byte the program touches counts in
    /// the resident memory too (measured: an endless body collected to the
    /// 64 MiB limit grows a plain build by 143 MiB and a sanitized one by
    /// 287 MiB). Still far below what an unbounded fault reaches, which is
    /// gigabytes.
    public static func bound(_ plain: Int, sanitized: Int? = nil) -> Int {
        isSanitized ? sanitized ?? 2 * plain : plain
    }

    /// Whether this build runs under the thread sanitizer.
    public static var isSanitized: Bool { courier_thread_sanitizer_is_on() == 1 }

    /// Runs `body` from a fresh peak and returns what it returned, how many
    /// MiB the peak resident memory rose above the memory in use when it
    /// started, and how long it took.
    public static func measure<T>(
        _ body: () async throws -> T
    ) async rethrows -> (result: T, growth: Int, duration: Duration) {
        reset()
        let start = residentMebibytes ?? 0
        let clock = ContinuousClock()
        let began = clock.now
        let result = try await body()
        let duration = clock.now - began
        return (result, (mebibytes ?? 0) - start, duration)
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes / 1024
    }
}

/// Runs one case of a test in a process of its own, so that the peak resident
/// memory it measures is that call's alone and not the parallel run's.
///
/// The test binary starts itself again, filtered to the one test, with
/// `COURIER_MEASURED_ALONE` naming the case. There the case of that name runs
/// its body and every other case returns at once. Here the test passes when
/// that process passed, and prints what its body reported.
///
/// ```swift
/// @Test(arguments: TransportKind.networked)
/// func anEndlessBodyStops(kind: TransportKind) async throws {
///     try await MeasuredAlone.run(suite: "BoundedMemoryTests", case: "\(kind)") {
///         let measured = try await PeakMemory.measure { … }
///         MeasuredAlone.report("\(kind): grew by \(measured.growth) MiB")
///         #expect(measured.growth < 192)
///     }
/// }
/// ```
public enum MeasuredAlone {
    private static let variable = "COURIER_MEASURED_ALONE"
    /// One process of its own at a time, whichever suite starts it: each is
    /// a whole load (thousands of requests, a gigabyte streamed), and
    /// several at once on two cores starved the rest of the run past its
    /// time-outs under the thread sanitizer.
    private static let turns = Turns()
    private static let marker = "measured alone: "

    /// Runs `body` in a process of its own when called from the test run, or
    /// here when this process is that one and `name` is its case.
    ///
    /// - Parameters:
    ///   - suite: The suite's type name, for the filter.
    ///   - test: The test function; its name up to the parenthesis is the filter.
    ///   - name: This case's name, the same in both processes (its arguments).
    ///   - body: The measurement and its expectations.
    public static func run(
        suite: String,
        test: String = #function,
        case name: String,
        _ body: () async throws -> Void
    ) async throws {
        #if !os(Linux)
        // No `/proc` to read a peak from or to start this binary again with:
        // the body runs here, its expectations on the outcome hold, and the
        // peak reads as no growth (the bounds are checked on Linux).
        try await body()
        return
        #else
        if let chosen = ProcessInfo.processInfo.environment[variable] {
            if chosen == name { try await body() }
            return
        }
        await turns.enter()
        let status: Int32, output: String
        do {
            (status, output) = try await runAlone(filter: "\(suite)/\(test.prefix { $0 != "(" })", name: name)
            await turns.leave()
        } catch {
            await turns.leave()
            throw error
        }
        let reports = output.split(separator: "\n").filter { $0.contains(marker) }
        for line in reports { print(line) }
        if status != 0 {
            Issue.record("\(name): the process of its own exited with \(status):\n\(Self.excerpt(of: output))")
        } else if reports.isEmpty {
            Issue.record("\(name): the process of its own reported nothing, so it ran no case of that name")
        }
        #endif
    }

    /// The end of a failed run's output, and a sanitizer's report whole
    /// (its first lines say what raced, which the end of the output does not).
    private static func excerpt(of output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.suffix(40)
        guard let report = lines.firstIndex(where: { $0.contains("WARNING: ThreadSanitizer") }), report < tail.startIndex else {
            return tail.joined(separator: "\n")
        }
        return (lines[report..<min(report + 80, tail.startIndex)] + ["…"] + tail).joined(separator: "\n")
    }

    /// Prints a line of the measurement, which the test run repeats.
    public static func report(_ line: String) {
        print(marker + line)
    }

    private static func runAlone(filter: String, name: String) async throws -> (Int32, String) {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("courier-alone-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = name
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

/// The bytes the process's heap holds now: what `malloc` handed out and was
/// not freed, in every arena (glibc's `mallinfo2`). Unlike the resident
/// memory, it does not keep what was freed, so a figure read once the calls
/// in flight have ended is what they left behind. Under the thread sanitizer,
/// whose allocator glibc does not see, the sanitizer's allocator counts
/// instead; where neither count exists, the resident memory stands in.
public enum HeapInUse {
    public static var bytes: Int {
        let heap = courier_heap_bytes_in_use()
        guard heap >= 0 else { return (PeakMemory.residentMebibytes ?? 0) << 20 }
        return Int(heap)
    }
}

/// A lock for async code: one holder at a time, the others waiting in turn.
actor Turns {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
