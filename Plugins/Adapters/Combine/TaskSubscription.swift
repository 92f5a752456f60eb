import Foundation
import Courier
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The subscription of a `TaskPublisher`: starts the task on the first
/// demand, buffers values the subscriber has not asked for yet, and delivers
/// them in order from one thread at a time.
final class TaskSubscription<Output: Sendable>: Subscription, @unchecked Sendable {
    // Type-erased, so the request's task captures no subscriber metatype.
    typealias Downstream = AnySubscriber<Output, NetworkError>

    // Every mutable field is guarded by `lock`; the subscriber is called with
    // the lock released, so it may request or cancel re-entrantly.
    private let lock = NSLock()
    private let operation: TaskPublisher<Output>.Operation
    private let queue: DispatchQueue?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var buffer: [Output] = []
    private var completion: Subscribers.Completion<NetworkError>?
    private var task: Task<Void, Never>?
    private var isStarted = false
    private var isDelivering = false

    init(downstream: Downstream, queue: DispatchQueue?, operation: @escaping TaskPublisher<Output>.Operation) {
        self.downstream = downstream
        self.queue = queue
        self.operation = operation
    }

    // MARK: - Subscription

    func request(_ newDemand: Subscribers.Demand) {
        lock.lock()
        guard downstream != nil, newDemand > .none else {
            lock.unlock()
            return
        }
        demand += newDemand
        let shouldStart = !isStarted
        isStarted = true
        lock.unlock()
        if shouldStart { start() }
        scheduleDelivery()
    }

    func cancel() {
        lock.lock()
        let task = self.task
        self.task = nil
        downstream = nil
        buffer.removeAll()
        lock.unlock()
        task?.cancel()
    }

    // MARK: - Running

    private func start() {
        let operation = self.operation
        let task = Task { [self] in
            let result: Result<Output, NetworkError>
            do throws(NetworkError) {
                result = .success(try await operation { [weak self] value in self?.enqueue(value) })
            } catch {
                result = .failure(error)
            }
            self.finish(result)
        }
        lock.lock()
        if downstream == nil {
            lock.unlock()
            task.cancel()
        } else {
            self.task = task
            lock.unlock()
        }
    }

    private func enqueue(_ value: Output) {
        lock.lock()
        guard downstream != nil else {
            lock.unlock()
            return
        }
        buffer.append(value)
        lock.unlock()
        scheduleDelivery()
    }

    private func finish(_ result: Result<Output, NetworkError>) {
        lock.lock()
        guard downstream != nil else {
            lock.unlock()
            return
        }
        switch result {
        case .success(let value):
            buffer.append(value)
            completion = .finished
        case .failure(let error):
            completion = .failure(error)
        }
        task = nil
        lock.unlock()
        scheduleDelivery()
    }

    // MARK: - Delivery

    /// Delivers on the callback queue when there is one, here otherwise.
    private func scheduleDelivery() {
        if let queue {
            queue.async { self.deliver() }
        } else {
            deliver()
        }
    }

    /// Sends what the demand allows; only one caller delivers at a time, the
    /// others leave their values to it, so values keep their order.
    private func deliver() {
        lock.lock()
        guard !isDelivering else {
            lock.unlock()
            return
        }
        isDelivering = true
        while let downstream {
            if !buffer.isEmpty, demand > .none {
                let value = buffer.removeFirst()
                demand -= 1
                lock.unlock()
                let more = downstream.receive(value)
                lock.lock()
                demand += more
            } else if buffer.isEmpty, let completion {
                self.downstream = nil
                isDelivering = false
                lock.unlock()
                downstream.receive(completion: completion)
                return
            } else {
                break
            }
        }
        isDelivering = false
        lock.unlock()
    }
}
