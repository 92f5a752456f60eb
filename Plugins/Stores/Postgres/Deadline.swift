import Foundation
import NIOConcurrencyHelpers

/// Races work against a time-out without waiting for work that ignores
/// cancellation: when the time is up the caller goes on, and the work is
/// cancelled and abandoned.
enum Deadline {
    /// The work's result, or `timeout()`'s error after `seconds`.
    static func run<Value: Sendable>(
        within seconds: TimeInterval,
        timeout: @escaping @Sendable () -> any Error,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let pending = NIOLockedValueBox<CheckedContinuation<Value, any Error>?>(nil)
        let worker = NIOLockedValueBox<Task<Void, Never>?>(nil)
        let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
            pending.withLockedValue { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                pending.withLockedValue { $0 = continuation }
                worker.withLockedValue {
                    $0 = Task {
                        do { finish(.success(try await work())) } catch { finish(.failure(error)) }
                    }
                }
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(min(max(seconds, 0), 1e9) * 1e9))
                    finish(.failure(timeout()))
                    worker.withLockedValue { $0 }?.cancel()
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
            worker.withLockedValue { $0 }?.cancel()
        }
    }
}
