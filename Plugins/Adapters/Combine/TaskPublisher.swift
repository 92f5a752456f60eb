import Foundation
import Courier
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A publisher that runs an async operation in a task once a subscriber asks
/// for a value, emits what the operation reports and then its result, and
/// cancels the task when the subscription is cancelled.
struct TaskPublisher<Output: Sendable>: Publisher {
    typealias Failure = NetworkError
    /// Runs the work; `emit` sends a value before the final one.
    typealias Operation = @Sendable (_ emit: @escaping @Sendable (Output) -> Void) async throws(NetworkError) -> Output

    let operation: Operation
    /// Where values and the completion are delivered; `nil` for wherever the
    /// work finished.
    let queue: DispatchQueue?

    init(queue: DispatchQueue? = nil, _ operation: @escaping Operation) {
        self.queue = queue
        self.operation = operation
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == NetworkError {
        let subscription = TaskSubscription(downstream: AnySubscriber(subscriber), queue: queue, operation: operation)
        subscriber.receive(subscription: subscription)
    }
}
