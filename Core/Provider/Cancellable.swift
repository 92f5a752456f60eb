import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request started with a completion handler, which can be cancelled.
public protocol Cancellable: Sendable {
    /// Whether ``cancel()`` has been called.
    var isCancelled: Bool { get }
    /// Cancels the request; its completion receives ``NetworkError/cancelled``
    /// unless it had already finished.
    func cancel()
}

/// A ``Cancellable`` backed by a Swift task: what a callback-style call
/// built on an `async` one returns (the provider's own callback calls do).
///
/// ```swift
/// func fetchQuota(completion: @escaping @Sendable (Result<Quota, NetworkError>) -> Void) -> any Cancellable {
///     TaskCancellable(Task { completion(await fetchQuotaResult()) })
/// }
/// ```
public final class TaskCancellable: Cancellable {
    private let task: Task<Void, Never>

    /// A handle that cancels `task`.
    public init(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Whether the task was cancelled.
    public var isCancelled: Bool { task.isCancelled }

    /// Cancels the task.
    public func cancel() {
        task.cancel()
    }
}
