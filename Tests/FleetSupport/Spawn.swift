import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting and reaping child processes with `posix_spawn` and `waitpid`:
/// Foundation's `Process` on Linux sometimes never notices that a child
/// exited (it stays a zombie and `waitUntilExit()` never returns), which
/// would hang a test instead of failing it.
enum Spawn {
    /// Why a child could not be started.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `path` with `arguments`; the child's descriptors 0, 1 and 2
    /// become `stdin`, `stdout` and `stderr`, and it inherits no other. It
    /// inherits this process's environment, with `environment` added.
    static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                      stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of the test process reaches the child: PostgreSQL
        // counts the descriptors it can still open, and a test binary's
        // sockets and files would leave it too few to start.
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard status == 0 else { throw Failure(description: "could not start \(path): \(String(cString: strerror(status)))") }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later),
    /// which its Swift module does not show; `nil` where it is missing.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// A pipe whose two ends close in children (only what `start` passes as
    /// 0, 1 and 2 reaches a child), or `nil`.
    static func pipe() -> (read: Int32, write: Int32)? {
        var descriptors: [Int32] = [0, 0]
        #if canImport(Glibc)
        guard Glibc.pipe(&descriptors) == 0 else { return nil }
        #else
        guard Darwin.pipe(&descriptors) == 0 else { return nil }
        #endif
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// The child's exit status once it has exited (reaping it), or `nil`
    /// while it runs.
    static func exitStatus(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result < 0 ? -1 : nil }
        // Exited: the code; killed by a signal: 128 + the signal, as shells say.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Waits (blocking the thread) until the child exits and returns its status.
    static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
