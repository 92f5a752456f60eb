import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process that speaks in lines: the Fleet example in worker mode.
/// Its standard output is collected line by line, so a caller can wait for
/// a line to appear (with a deadline) instead of sleeping.
public final class WorkerProcess: Sendable {
    /// Why waiting for a worker failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What was awaited, and what the worker printed.
        public let description: String
    }

    /// The process id.
    public let pid: pid_t
    private let input: FileHandle
    private let lines = NIOLockedValueBox<(complete: [String], partial: String)>(([], ""))
    private let errors = NIOLockedValueBox(Data())
    private let exitStatus = NIOLockedValueBox<Int32?>(nil)

    /// Starts `executable` with `arguments`, and `environment` added to this
    /// process's.
    /// - Throws: ``Failure`` when it cannot be started.
    public init(executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        guard let stdin = Spawn.pipe(), let stdout = Spawn.pipe(), let stderr = Spawn.pipe() else {
            throw Failure(description: "no pipes for a worker (errno \(errno))")
        }
        do {
            pid = try Spawn.start(executable.path, arguments, environment: environment, stdin: stdin.read, stdout: stdout.write,
                                  stderr: stderr.write)
        } catch {
            throw Failure(description: "\(error)")
        }
        [stdin.read, stdout.write, stderr.write].forEach { close($0) }
        input = FileHandle(fileDescriptor: stdin.write, closeOnDealloc: true)
        // A thread per pipe, blocked in read(2) until the worker closes it:
        // FileHandle's readability handlers close a descriptor while the
        // dispatch source on it may still be registered, which crashes
        // libdispatch when the number is reused.
        let lines = lines
        Self.readUntilEnd(stdout.read) { data in
            lines.withLockedValue { state in
                var pieces = (state.partial + String(decoding: data, as: UTF8.self)).components(separatedBy: "\n")
                state.partial = pieces.removeLast()
                state.complete += pieces
            }
        }
        let errors = errors
        Self.readUntilEnd(stderr.read) { data in errors.withLockedValue { $0.append(data) } }
    }

    private static func readUntilEnd(_ descriptor: Int32, _ received: @escaping @Sendable (Data) -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                received(Data(buffer[0..<count]))
            }
            close(descriptor)
        }
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = Spawn.wait(for: pid)
        }
    }

    /// Every complete line printed so far.
    public var output: [String] { lines.withLockedValue { $0.complete } }

    /// What the worker wrote to standard error so far.
    public var errorOutput: String { String(decoding: errors.withLockedValue { $0 }, as: UTF8.self) }

    /// Whether the process is still running (reaping it once it has exited).
    public var isRunning: Bool { status == nil }

    /// The exit status, once the process has exited.
    private var status: Int32? {
        exitStatus.withLockedValue { known in
            if known == nil { known = Spawn.exitStatus(of: pid) }
            return known
        }
    }

    /// Sends a line to the worker's standard input.
    public func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until the worker has printed a line starting with `prefix` and
    /// returns the rest of it.
    /// - Throws: ``Failure`` when `seconds` pass first or the worker exits.
    @discardableResult
    public func waitForLine(startingWith prefix: String, within seconds: TimeInterval) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var exitedAt: Date?
        while true {
            if let line = output.first(where: { $0.hasPrefix(prefix) }) {
                return String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            }
            // A worker that exited may still have lines in the pipe: give the
            // reader a moment before giving up.
            if !isRunning, exitedAt == nil { exitedAt = Date() }
            if let exitedAt, Date().timeIntervalSince(exitedAt) > 0.5 {
                throw Failure(description: "exited (\(status ?? -1)) without \"\(prefix)\"; printed: \(output), stderr: \(errorOutput)")
            }
            guard Date() < deadline else {
                throw Failure(description: "no line starting with \"\(prefix)\" within \(seconds) s; printed: \(output), stderr: \(errorOutput)")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    /// Sends a signal to the worker.
    public func signal(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits until the worker has exited and returns its status.
    /// - Throws: ``Failure`` when `seconds` pass first (the worker is then killed).
    @discardableResult
    public func waitForExit(within seconds: TimeInterval) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            guard Date() < deadline else {
                signal(SIGKILL)
                throw Failure(description: "still running after \(seconds) s; printed: \(output), stderr: \(errorOutput)")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return status ?? -1
    }

    /// The `Fleet` executable next to the running one (the test bundle or
    /// the example itself), as `swift build` places them.
    public static func fleetExecutable() throws -> URL {
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var candidates = [running.deletingLastPathComponent().appendingPathComponent("Fleet")]
        if let argument = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent().appendingPathComponent("Fleet"))
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw Failure(description: "the Fleet executable is not in \(candidates.map(\.path)): run swift build first")
    }
}
