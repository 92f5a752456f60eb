import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock (package access: the plugins of this package use
/// it too), for the few places where shared mutable state is simpler than an
/// actor (callbacks from Foundation delegates, counters read on the hot path).
///
/// The value and its mutex live in one allocation: a transfer makes several of
/// these, and an `NSLock` beside the value would cost two more.
package struct Locked<Value>: @unchecked Sendable {
    private let storage: Storage

    package init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    package var current: Value {
        withLock { $0 }
    }

    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            // `create` returns the dynamic type it was called on.
            return unsafeDowncast(buffer, to: Storage.self)
        }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try withUnsafeMutablePointers { value, mutex in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }

        // The header (the value) is deinitialized by ManagedBuffer itself.
        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                _ = mutex.deinitialize(count: 1)
            }
        }
    }
}
