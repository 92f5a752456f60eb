import Foundation
import Logging
import PostgresNIO

/// Bounds on one of the fleet's transactions, so that no holder of a lock,
/// whether a stranger, a slow process or a frozen one, keeps the fleet
/// waiting past its time-outs.
enum SessionLimits {
    /// Sets, for the current transaction only: how long a lock is waited for
    /// (`lock_timeout`), how long one statement may run (`statement_timeout`,
    /// the lock wait and five seconds), and how long the transaction may sit
    /// idle between statements before PostgreSQL ends the session and so
    /// releases its locks (`idle_in_transaction_session_timeout`): a process
    /// stopped while holding the refresh lock loses it after `idleTimeout`.
    static func apply(lockTimeout: TimeInterval, idleTimeout: TimeInterval,
                      on connection: PostgresConnection, logger: Logger) async throws {
        // SET takes no parameters; the numbers are ours, not the caller's.
        try await connection.query("SET LOCAL lock_timeout = \(unescaped: milliseconds(lockTimeout))", logger: logger)
        try await connection.query("SET LOCAL statement_timeout = \(unescaped: milliseconds(lockTimeout + 5))", logger: logger)
        try await connection.query(
            "SET LOCAL idle_in_transaction_session_timeout = \(unescaped: milliseconds(idleTimeout))", logger: logger
        )
    }

    /// How long the refresh lock's holder may go without a word to the
    /// database before PostgreSQL ends its session: its refresh time-out
    /// and a second, or ten seconds where that is longer. A holder waiting
    /// on the identity provider says a word every quarter of it
    /// (``keepingAlive(_:every:logger:_:)``), so only a frozen or vanished
    /// one is cut off, after seconds rather than after its whole time-out.
    static func lease(refreshTimeout: TimeInterval) -> TimeInterval {
        min(refreshTimeout + 1, 10)
    }

    /// Runs `body` while `connection` sends a no-op every `interval`, so the
    /// transaction is never idle past its lease while this process runs.
    ///
    /// The no-ops run in a task of their own, stopped (not awaited) once
    /// `body` returns: postgres-nio does not cancel a query already sent, so
    /// a no-op stuck on a silent network must never hold back `body`'s
    /// result. A failed no-op ends the keeping alive, not `body`: a session
    /// that is gone shows when the transaction next writes.
    static func keepingAlive<Result: Sendable>(
        _ connection: PostgresConnection, every interval: TimeInterval, logger: Logger,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1_000)))
                guard !Task.isCancelled else { return }
                do {
                    try await connection.query("SELECT 1", logger: logger)
                } catch {
                    return
                }
            }
        }
        defer { heartbeat.cancel() }
        return try await body()
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(Int(min(max(seconds, 0.001) * 1_000, 2_000_000_000).rounded(.up)))
    }
}
