import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Runs database work on threads of its own, so that a synchronous call
/// (``PostgresResponseCache``'s, which `ResponseCaching` requires) can wait
/// for it without waiting for the cooperative thread pool it may be
/// blocking: with every pool thread inside such a wait, work queued on the
/// pool would never run and every wait would end in its time-out. Each cache
/// has its own.
final class OffPoolExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "courier.postgres", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// What a bounded wait ended with.
    enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case failed(any Error)
        case timedOut
    }

    /// Runs `work` on this executor and waits at most `timeout` for it; work
    /// still running then is cancelled and left to finish on its own.
    func wait<Value: Sendable>(
        atMost timeout: Duration,
        _ work: @escaping @Sendable () async throws -> Value
    ) -> Outcome<Value> {
        let outcome = NIOLockedValueBox<Outcome<Value>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let body: @Sendable () async -> Void = {
            let result: Outcome<Value>
            do { result = .finished(try await work()) } catch { result = .failed(error) }
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        let task: Task<Void, Never>
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            task = Task(executorPreference: self, operation: body)
        } else {
            task = Task.detached(operation: body)
        }
        guard done.wait(timeout: .now() + timeout.timeInterval) == .success else {
            task.cancel()
            return .timedOut
        }
        return outcome.withLockedValue { $0 } ?? .timedOut
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch and Foundation.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
