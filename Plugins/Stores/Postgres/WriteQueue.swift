import NIOConcurrencyHelpers

/// Runs writes one after another, in the order they were asked for, off the
/// caller: a store's synchronous `save`, `store` or `clear` returns at once.
final class WriteQueue: Sendable {
    private struct State {
        var last: Task<Void, Never>?
        var pending = 0
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int
    private let onFailure: @Sendable (any Error) -> Void

    /// - Parameters:
    ///   - limit: The most writes waiting; one more is dropped.
    ///   - onFailure: Called with the error of a write that failed.
    init(limit: Int, onFailure: @escaping @Sendable (any Error) -> Void) {
        self.limit = limit
        self.onFailure = onFailure
    }

    /// How many writes have not finished yet.
    var pending: Int { state.withLockedValue { $0.pending } }

    /// Queues `write` after the writes queued before it.
    /// - Returns: `false` when it was dropped because the queue is full.
    @discardableResult
    func enqueue(_ write: @escaping @Sendable () async throws -> Void) -> Bool {
        state.withLockedValue { state in
            guard state.pending < limit else { return false }
            state.pending += 1
            let previous = state.last
            state.last = Task { [onFailure] in
                await previous?.value
                do { try await write() } catch { onFailure(error) }
                self.state.withLockedValue { $0.pending -= 1 }
            }
            return true
        }
    }

    /// Returns once every write queued so far has finished.
    func waitUntilDone() async {
        await state.withLockedValue { $0.last }?.value
    }
}
