import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value guarded by a lock (package access: the plugins of this package use it too), for the few places where shared mutable state is
/// simpler than an actor (callbacks from Foundation delegates, counters read on
/// the hot path).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value {
        withLock { $0 }
    }
}
