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

/// A ``Cancellable`` backed by a Swift task.
final class TaskCancellable: Cancellable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    var isCancelled: Bool { task.isCancelled }

    func cancel() {
        task.cancel()
    }
}
