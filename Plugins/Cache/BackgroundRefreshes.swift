import Courier
import Foundation

/// The background refreshes a ``CachePlugin`` has under way, at most one per
/// key, so tests and apps can await them instead of sleeping.
final class BackgroundRefreshes: Sendable {
    private let tasks = Locked<[String: Task<Void, Never>]>([:])

    /// Starts `work` for `key` unless a refresh of `key` is already running.
    func start(key: String, _ work: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            guard tasks[key] == nil else { return }
            // The task removes itself; it cannot do so before this insertion
            // because it needs the same lock.
            tasks[key] = Task {
                await work()
                self.tasks.withLock { $0[key] = nil }
            }
        }
    }

    /// Waits until no refresh is running.
    func waitForAll() async {
        while let task = tasks.withLock({ $0.values.first }) {
            await task.value
        }
    }
}
