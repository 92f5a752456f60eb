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

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(Int(min(max(seconds, 0.001) * 1_000, 2_000_000_000).rounded(.up)))
    }
}
