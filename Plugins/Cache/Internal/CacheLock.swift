import Courier
import Foundation

/// A value guarded by a lock: the stores' indexes are touched from many tasks
/// at once and each operation is short, so a lock is simpler than an actor
/// and keeps the ``ResponseCaching`` methods synchronous.
final class CacheLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
