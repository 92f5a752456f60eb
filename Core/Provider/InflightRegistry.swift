import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Lets identical in-flight requests share one transfer.
///
/// The first caller for a key starts the transfer in a task of its own; later
/// callers for the same key wait for it. A waiter that is cancelled stops
/// waiting at once; the transfer is cancelled only when every waiter has gone.
final class InflightRegistry: Sendable {
    /// What makes two requests identical: method, URL with its query, header
    /// fields and body.
    struct Key: Hashable, Sendable {
        let method: String
        let url: String
        let headers: [String]
        let body: Data?
        /// The transfer's time-out, deadline and size limit: callers that
        /// would fail differently never share a transfer.
        let timeout: TimeInterval
        let deadline: TimeInterval?
        let maximumResponseSize: Int64?

        /// `nil` for requests that never merge: not GET or HEAD, uploads,
        /// downloads, streamed bodies and requests that report progress.
        init?(_ urlRequest: URLRequest, inputs: TransferInputs) {
            let method = urlRequest.httpMethod?.uppercased() ?? "GET"
            guard method == "GET" || method == "HEAD",
                  inputs.uploadFile == nil, inputs.bodyStream == nil, inputs.downloadDestination == nil, inputs.progress == nil,
                  urlRequest.httpBodyStream == nil,
                  let url = urlRequest.url?.absoluteString
            else { return nil }
            self.method = method
            self.url = url
            self.headers = (urlRequest.allHTTPHeaderFields ?? [:])
                .map { "\($0.key.lowercased()):\($0.value)" }
                .sorted()
            self.body = urlRequest.httpBody
            self.timeout = urlRequest.timeoutInterval
            self.deadline = inputs.deadline
            self.maximumResponseSize = inputs.maximumResponseSize
        }
    }

    private typealias Machine = InflightStateMachine<Key, CheckedContinuation<Response, any Error>, Task<Void, Never>>

    /// The flights, as ``InflightStateMachine`` keeps them.
    private let machine = Locked(Machine())
    private let nextWaiter = Locked<UInt64>(0)

    // Not inlined: a path a plain call does not take (see the note on
    // frames in Provider+Pipeline.swift).
    @inline(never)
    func run(_ key: Key, operation: @escaping @Sendable () async throws(NetworkError) -> Response) async throws(NetworkError) -> Response {
        do {
            return try await join(key, operation: operation)
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    private func join(_ key: Key, operation: @escaping @Sendable () async throws(NetworkError) -> Response) async throws -> Response {
        let waiter = nextWaiter.withLock { id in
            id += 1
            return id
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if case .start(let flight) = machine.withLock({ $0.join(key, waiter: waiter, continuation) }) {
                    let task = Task {
                        let result: Result<Response, any Error>
                        do {
                            result = .success(try await operation())
                        } catch {
                            result = .failure(error)
                        }
                        for waiter in self.machine.withLock({ $0.finished(key, flight: flight) }) {
                            waiter.resume(with: result)
                        }
                    }
                    if case .cancel(let task) = machine.withLock({ $0.started(key, flight: flight, task: task) }) {
                        task.cancel()
                    }
                }
                if Task.isCancelled {
                    leave(key, waiter: waiter)
                }
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
    }

    /// How many callers are waiting on shared transfers.
    var waiterCount: Int {
        machine.withLock { $0.waiterCount }
    }

    private func leave(_ key: Key, waiter: UInt64) {
        guard case .cancelled(let continuation, let task) = machine.withLock({ $0.leave(key, waiter: waiter) }) else { return }
        continuation.resume(throwing: CancellationError())
        task?.cancel()
    }
}

// MARK: - The state machine

/// The flights of an ``InflightRegistry`` as a state machine: for each key,
/// at most one flight, which is being started (its first caller is making its
/// task) or running, with the callers waiting for it.
///
/// Every transition returns what its caller must do once the lock is
/// released (start a task, cancel one, resume waiters), so nothing runs under
/// the lock, and the transitions are tested one by one without tasks or
/// timing. `Waiter` is what a waiting caller is resumed through (a
/// continuation) and `Handle` what cancels a flight (a task); tests use plain
/// values.
struct InflightStateMachine<Key: Hashable, Waiter, Handle> {
    enum Flight {
        /// The first caller is making the flight's task.
        case starting(id: UInt64, waiters: [UInt64: Waiter])
        /// The flight's task runs.
        case running(id: UInt64, task: Handle, waiters: [UInt64: Waiter])

        var id: UInt64 {
            switch self {
            case .starting(let id, _), .running(let id, _, _): id
            }
        }

        var waiters: [UInt64: Waiter] {
            switch self {
            case .starting(_, let waiters), .running(_, _, let waiters): waiters
            }
        }
    }

    private(set) var flights: [Key: Flight] = [:]
    private var lastFlight: UInt64 = 0

    /// What a caller that joined does next.
    enum JoinAction: Equatable {
        /// No flight had the key: start one, with this id.
        case start(flight: UInt64)
        /// A flight had it: wait to be resumed.
        case wait
    }

    /// Adds caller `waiter` to the flight of `key`, or makes one.
    mutating func join(_ key: Key, waiter: UInt64, _ resume: Waiter) -> JoinAction {
        switch flights[key] {
        case .starting(let id, var waiters):
            waiters[waiter] = resume
            flights[key] = .starting(id: id, waiters: waiters)
            return .wait
        case .running(let id, let task, var waiters):
            waiters[waiter] = resume
            flights[key] = .running(id: id, task: task, waiters: waiters)
            return .wait
        case nil:
            lastFlight += 1
            flights[key] = .starting(id: lastFlight, waiters: [waiter: resume])
            return .start(flight: lastFlight)
        }
    }

    /// What the caller that made a flight's task does with it.
    enum StartedAction {
        /// Nothing: the flight runs.
        case none
        /// The flight is gone: every waiter left while the task was being
        /// made (it must stop), or it has ended already (cancelling a task
        /// that is done does nothing). Cancel it.
        case cancel(Handle)
    }

    /// The task of flight `id` is made.
    mutating func started(_ key: Key, flight id: UInt64, task: Handle) -> StartedAction {
        switch flights[key] {
        case .starting(id, let waiters):
            flights[key] = .running(id: id, task: task, waiters: waiters)
            return .none
        case .running(id, _, _):
            return .none
        default:
            // The flight is gone. It ended (then the task is done) or every
            // waiter left (then it must stop): cancelling does both right.
            return .cancel(task)
        }
    }

    /// Flight `id` has its result: its waiters, to resume with it. A flight
    /// that every waiter left (and that another may have replaced since)
    /// has none.
    mutating func finished(_ key: Key, flight id: UInt64) -> [Waiter] {
        guard let flight = flights[key], flight.id == id else { return [] }
        flights[key] = nil
        return Array(flight.waiters.values)
    }

    /// What a caller that stops waiting does.
    enum LeaveAction {
        /// Nothing: it had been resumed already.
        case none
        /// Resume it with a cancellation, and cancel the flight's task if it
        /// was the last to wait for it.
        case cancelled(Waiter, cancelling: Handle?)
    }

    /// Caller `waiter` stops waiting for the flight of `key`. The last to
    /// leave ends the flight; its task is cancelled now if it runs, or when
    /// it is made (``started(_:flight:task:)``).
    mutating func leave(_ key: Key, waiter: UInt64) -> LeaveAction {
        switch flights[key] {
        case .starting(let id, var waiters):
            guard let resume = waiters.removeValue(forKey: waiter) else { return .none }
            flights[key] = waiters.isEmpty ? nil : .starting(id: id, waiters: waiters)
            return .cancelled(resume, cancelling: nil)
        case .running(let id, let task, var waiters):
            guard let resume = waiters.removeValue(forKey: waiter) else { return .none }
            guard waiters.isEmpty else {
                flights[key] = .running(id: id, task: task, waiters: waiters)
                return .cancelled(resume, cancelling: nil)
            }
            flights[key] = nil
            return .cancelled(resume, cancelling: task)
        case nil:
            return .none
        }
    }

    /// How many callers wait, over every flight.
    var waiterCount: Int {
        flights.values.reduce(0) { $0 + $1.waiters.count }
    }
}

extension InflightStateMachine: Sendable where Key: Sendable, Waiter: Sendable, Handle: Sendable {}
extension InflightStateMachine.Flight: Sendable where Key: Sendable, Waiter: Sendable, Handle: Sendable {}
