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

    private final class Flight: @unchecked Sendable {
        var waiters: [UInt64: CheckedContinuation<Response, any Error>] = [:]
        var task: Task<Void, Never>?
        var abandoned = false
    }

    private let flights = Locked<[Key: Flight]>([:])
    private let nextWaiter = Locked<UInt64>(0)

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
                let start = flights.withLock { flights -> Flight? in
                    if let flight = flights[key] {
                        flight.waiters[waiter] = continuation
                        return nil
                    }
                    let flight = Flight()
                    flight.waiters[waiter] = continuation
                    flights[key] = flight
                    return flight
                }
                if let start {
                    let task = Task {
                        let result: Result<Response, any Error>
                        do {
                            result = .success(try await operation())
                        } catch {
                            result = .failure(error)
                        }
                        self.finish(start, key: key, with: result)
                    }
                    let abandoned = flights.withLock { _ in
                        start.task = task
                        return start.abandoned
                    }
                    if abandoned { task.cancel() }
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
        flights.withLock { flights in flights.values.reduce(0) { $0 + $1.waiters.count } }
    }

    private func finish(_ flight: Flight, key: Key, with result: Result<Response, any Error>) {
        let waiters = flights.withLock { flights in
            if flights[key] === flight {
                flights.removeValue(forKey: key)
            }
            let waiters = Array(flight.waiters.values)
            flight.waiters.removeAll()
            return waiters
        }
        for waiter in waiters {
            waiter.resume(with: result)
        }
    }

    private func leave(_ key: Key, waiter: UInt64) {
        let (continuation, orphaned) = flights.withLock { flights -> (CheckedContinuation<Response, any Error>?, Task<Void, Never>?) in
            guard let flight = flights[key], let continuation = flight.waiters.removeValue(forKey: waiter) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                flights.removeValue(forKey: key)
                flight.abandoned = true
                return (continuation, flight.task)
            }
            return (continuation, nil)
        }
        continuation?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }
}
