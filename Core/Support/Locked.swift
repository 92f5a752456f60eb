import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a mutex, for the places where shared mutable state is
/// simpler than an actor: a plugin's hooks are synchronous and called from
/// any thread, so state a plugin keeps between them (a token, a counter, a
/// table of calls in flight) needs a lock. Every shipped plugin uses this
/// one; the standard library's `Mutex` does the same on platforms that have
/// it (macOS 15, iOS 18 and later).
///
/// Keep the closure short and never `await` or call out to unknown code
/// inside it.
///
/// ```swift
/// struct CountingPlugin: Plugin {
///     private let sent = Locked(0)
///     func willSend(_ request: URLRequest, context: RequestContext) async {
///         sent.withLock { $0 += 1 }
///     }
///     var count: Int { sent.current }
/// }
/// ```
///
/// The value and its mutex live in one allocation. Its calls are inlinable,
/// so a plugin or transport in another module gets them specialised for its
/// value's type instead of looking the generic type up on every call.
public struct Locked<Value>: @unchecked Sendable {
    @usableFromInline let storage: Storage

    /// Guards `value`.
    @inlinable
    public init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with exclusive access to the value and returns what it
    /// returns; rethrows what it throws.
    @discardableResult @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    /// A copy of the value, read under the lock.
    @inlinable
    public var current: Value {
        withLock { $0 }
    }

    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        @inlinable
        static func make(_ value: Value) -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in value }
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            // `create` returns the dynamic type it was called on.
            return unsafeDowncast(buffer, to: Storage.self)
        }

        @inlinable
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
