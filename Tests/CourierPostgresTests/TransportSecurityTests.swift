import CourierPostgres
import CourierTestSupport
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A machine in the network path that answers PostgreSQL's request for TLS
/// with "no": by default the fleet never goes on in clear, so no user name,
/// password or token reaches it.
@Suite struct TransportSecurityTests {
    @Test func aServerThatRefusesTLSGetsNothingByDefault() async throws {
        let server = try DowngradingServer()
        let storage = try PostgresStorage(connectionString: "postgres://fleet:hunter2@127.0.0.1:\(server.port)/courier",
                                          maximumConnections: 1)
        let after = await server.bytesAfterRefusal(whileRunning: storage)
        #expect(server.sawTLSRequest)
        #expect(after.isEmpty, "the client went on in clear: \(after.count) bytes")
    }

    /// The same server with `sslmode=prefer`, named: the client falls back
    /// to cleartext and sends its user name (which shows the server above
    /// would have seen it), and the configuration says so.
    @Test func preferFallsBackToCleartextOnlyWhenNamed() async throws {
        let server = try DowngradingServer()
        let storage = try PostgresStorage(connectionString: "postgres://fleet:hunter2@127.0.0.1:\(server.port)/courier?sslmode=prefer",
                                          maximumConnections: 1)
        let after = await server.bytesAfterRefusal(whileRunning: storage)
        #expect(String(decoding: after, as: UTF8.self).contains("fleet"))
    }

    /// `prefer` and `allow` are taken only with a warning in the log that
    /// says what they risk and what to use; `require` and `verify-full`
    /// log nothing. No connection is opened: the warning comes with the
    /// storage.
    @Test(arguments: ["prefer", "allow", "require", "verify-full"])
    func aModeThatAllowsCleartextIsLoggedAsAWarning(mode: String) throws {
        let lines = WarningLines()
        let logger = Logger(label: "courier.postgres.test") { _ in lines }
        _ = try PostgresStorage(connectionString: "postgres://fleet@db.internal/courier?sslmode=\(mode)", maximumConnections: 1,
                                logger: logger)
        let warnings = lines.messages.withLock { $0 }
        if mode == "prefer" || mode == "allow" {
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("sslmode=\(mode)") == true)
            #expect(warnings.first?.contains("use sslmode=require or verify-full") == true)
        } else {
            #expect(warnings.isEmpty)
        }
    }

    @Test func sslModesAreReadStrictly() throws {
        #expect(throws: PostgresStorageError.self) {
            try PostgresStorage.Configuration(connectionString: "postgres://me@db.internal/app?sslmode=sometimes")
        }
        #expect(throws: PostgresStorageError.self) {
            try PostgresStorage.Configuration(connectionString: "postgres://me@db.internal/app?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
        }
    }
}

/// Keeps the messages of warnings and worse.
private struct WarningLines: LogHandler {
    let messages = Mutex<[String]>([])
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        if event.level >= .warning { messages.withLock { $0.append("\(event.message)") } }
    }
}

/// Listens on loopback, answers the first 8-byte SSLRequest with `N`, and
/// records every byte the client sends after it.
private final class DowngradingServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var received = Data()
    private var tlsRequested = false
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serveOne() }
    }

    var sawTLSRequest: Bool { lock.withLock { tlsRequested } }

    /// Runs `storage` and asks it to prepare, long enough for a client that
    /// goes on in clear to send its startup message; returns what came after
    /// the refusal.
    func bytesAfterRefusal(whileRunning storage: PostgresStorage) async -> Data {
        let pool = Task { await storage.run() }
        let prepare = Task { try await storage.prepare() }
        // The server's side ends when the client closes, or after its read
        // time-out: either way, what it got is all it will get.
        // Waited for on a thread of its own: a blocking wait on a thread of
        // Dispatch's global queue takes one of its few threads (one a core),
        // and with two such waits the operation queues URLSession delivers
        // on, and then every URLSession in the process, stall.
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [done] in
                done.wait()
                continuation.resume()
            }
        }
        prepare.cancel()
        pool.cancel()
        _ = await prepare.result
        close(listener)
        return lock.withLock { received }
    }

    private func serveOne() {
        defer { done.signal() }
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        // A client that waits for more than this after the refusal has
        // nothing more to say.
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8](repeating: 0, count: 8)
        guard recv(connection, &request, 8, Int32(MSG_WAITALL)) == 8 else { return }
        // Length 8, then the SSLRequest code 80877103.
        guard request == [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F] else { return }
        lock.withLock { tlsRequested = true }
        _ = send(connection, "N", 1, 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            lock.withLock { received.append(contentsOf: buffer[0..<count]) }
        }
    }
}
