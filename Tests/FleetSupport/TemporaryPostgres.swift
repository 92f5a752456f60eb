import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway PostgreSQL server in a temporary folder, for the Fleet example
/// and the tests: `initdb` with trust authentication for one user, listening
/// only on a Unix socket in that folder.
///
/// PostgreSQL refuses to run as root: when this process is root, the server
/// runs as the `postgres` user (Debian's package creates it) through
/// `runuser`, in a folder that user owns. The server binaries are found with
/// `pg_config --bindir`, or under `/usr/lib/postgresql/<version>/bin`.
public final class TemporaryPostgres: Sendable {
    /// Why a server could not be started or stopped.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with the command's output.
        public let description: String
    }

    /// The folder holding the data directory, the socket and the log.
    public let directory: URL
    /// The user the tests connect as.
    public let user = "courier"
    private let binaries: URL
    private let runAs: String?

    /// The socket's port number (part of its file name; nothing listens on TCP).
    public let port = 5432

    /// A connection string for ``PostgresStorage``-style clients.
    public var connectionString: String {
        "postgres://\(user)@localhost/postgres?host=\(directory.path)&sslmode=disable"
    }

    /// The path of the Unix socket.
    public var socketPath: String { directory.path + "/.s.PGSQL.\(port)" }

    private var dataDirectory: String { directory.path + "/data" }

    /// ``start()`` on a thread of its own: `initdb` and `pg_ctl` take
    /// seconds, and a blocked thread of Swift's cooperative pool (as many as
    /// there are cores) would stall every other task of a test run.
    public static func started() async throws -> TemporaryPostgres {
        try await offThePool { try start() }
    }

    /// ``stop()`` on a thread of its own.
    public func stopped() async throws {
        try await Self.offThePool { try self.stop() }
    }

    /// ``start()`` (again) on a thread of its own.
    public func restarted() async throws {
        try await Self.offThePool { try self.start() }
    }

    /// ``shutdown()`` on a thread of its own.
    public func shutDown() async {
        _ = try? await Self.offThePool { self.shutdown() }
    }

    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Creates the folder, runs `initdb` and starts the server.
    /// - Throws: ``Failure`` saying what is missing or what the server said.
    public static func start() throws -> TemporaryPostgres {
        let server = try TemporaryPostgres()
        try server.initialise()
        try server.start()
        return server
    }

    private init() throws {
        binaries = try Self.findBinaries()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        directory = base
        if geteuid() == 0 {
            guard let entry = getpwnam("postgres") else {
                throw Failure(description: "running as root, and there is no postgres user to run PostgreSQL as: install Debian's postgresql package")
            }
            guard chown(base.path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw Failure(description: "could not give \(base.path) to the postgres user (errno \(errno))")
            }
            runAs = "postgres"
        } else {
            runAs = nil
        }
    }

    private func initialise() throws {
        try run("initdb", ["-D", dataDirectory, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
    }

    /// Starts the server (again) and returns once it accepts connections.
    /// - Throws: ``Failure`` with the server's log.
    public func start() throws {
        let options = "-c listen_addresses='' -k \(directory.path) -p \(port) -c fsync=off -c max_connections=200"
        do {
            try run("pg_ctl", ["-D", dataDirectory, "-o", options, "-l", directory.path + "/server.log", "-w", "-t", "60", "start"])
        } catch let failure as Failure {
            let log = (try? String(contentsOfFile: directory.path + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: failure.description + "\nserver log:\n" + log)
        }
    }

    /// Stops the server (fast shutdown: clients are disconnected) and returns
    /// once it has stopped.
    /// - Throws: ``Failure`` with `pg_ctl`'s output.
    public func stop() throws {
        try run("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server if it runs and deletes its folder.
    public func shutdown() {
        try? stop()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Helpers

    private func run(_ tool: String, _ arguments: [String]) throws {
        let path = binaries.appendingPathComponent(tool).path
        let (executable, fullArguments) = runAs.map { (Self.runuser, ["-u", $0, "--", path] + arguments) } ?? (path, arguments)
        // A file, not a pipe: the server pg_ctl starts could inherit a pipe
        // and keep it open.
        let outputPath = directory.path + "/\(tool).out"
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(output)
            close(input)
        }
        guard output >= 0, input >= 0 else { throw Failure(description: "could not create \(outputPath)") }
        let pid: pid_t
        do {
            pid = try Spawn.start(executable, fullArguments, stdin: input, stdout: output, stderr: output)
        } catch {
            throw Failure(description: "\(error)")
        }
        let status = Spawn.wait(for: pid)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }

    private static var runuser: String {
        ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/sbin/runuser"
    }

    private static func findBinaries() throws -> URL {
        var candidates: [String] = []
        if let fromConfig = try? output(of: "/usr/bin/pg_config", ["--bindir"]) {
            candidates.append(fromConfig)
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        candidates += ["/usr/local/bin", "/opt/homebrew/bin"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate + "/initdb") {
            return URL(fileURLWithPath: candidate)
        }
        throw Failure(description: "no PostgreSQL server binaries (initdb, pg_ctl) in \(candidates): install Debian's postgresql package")
    }

    private static func output(of tool: String, _ arguments: [String]) throws -> String {
        guard let pipe = Spawn.pipe() else { throw Failure(description: "no pipe for \(tool)") }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let pid = try Spawn.start(tool, arguments, stdin: input, stdout: pipe.write, stderr: pipe.write)
        close(pipe.write)
        let reader = FileHandle(fileDescriptor: pipe.read, closeOnDealloc: true)
        let data = reader.readDataToEndOfFile()
        _ = Spawn.wait(for: pid)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
