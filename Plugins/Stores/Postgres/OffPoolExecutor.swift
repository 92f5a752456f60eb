import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Runs database work on threads of its own, so that a synchronous call
/// (``PostgresResponseCache``'s, which `ResponseCaching` requires) can wait
/// for it without waiting for the cooperative thread pool it may be
/// blocking: with every pool thread inside such a wait, work queued on the
/// pool would never run and every wait would end in its time-out. Each cache
/// has its own.
///
/// The work runs on serial dispatch queues, taken in turn. A concurrent
/// queue would not do: Dispatch runs it on its global queue's threads, which
/// on Linux are the cooperative pool's (measured: with those threads held, a
/// block on a concurrent queue waited 4.8 s, one on a serial queue 0.2 ms).
/// A serial queue gets a thread of its own when it has work.
final class OffPoolExecutor: TaskExecutor {
    private let queues: [DispatchQueue]
    private let next = NIOLockedValueBox(0)

    /// - Parameter width: How many jobs may run at once: one serial queue each.
    init(width: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        queues = (0..<max(1, width)).map { DispatchQueue(label: "courier.postgres.\($0)") }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let queue = next.withLockedValue { index in
            defer { index = (index + 1) % queues.count }
            return queues[index]
        }
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
