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
/// inside it. A `Locked` is `Sendable` only when its value is, so nothing
/// that may not cross threads crosses them through it.
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
public struct Locked<Value> {
    @usableFromInline let storage: LockedStorage<Void, Value>

    /// Guards `value`.
    @inlinable
    public init(_ value: Value) {
        storage = LockedStorage.make(fixed: (), value: value)
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
}

/// What a ``LockedStorage`` holds: a part that never changes and a value
/// that changes under the lock.
@usableFromInline
struct LockedParts<Fixed, Value> {
    @usableFromInline let fixed: Fixed
    @usableFromInline var value: Value

    @inlinable
    init(fixed: Fixed, value: Value) {
        self.fixed = fixed
        self.value = value
    }
}

/// One allocation holding a part that never changes, read without the lock,
/// a value guarded by a mutex, and the mutex. It is the storage of
/// ``Locked`` (with no fixed part), and of objects that every call makes,
/// shares between threads and changes in one place only (a response, whose
/// `HTTPURLResponse` is made on first read): a lock object of their own
/// would cost every call another allocation.
///
/// The fixed part is written once, before the storage is shared, so reading
/// it needs no lock.
@usableFromInline
final class LockedStorage<Fixed, Value>: ManagedBuffer<LockedParts<Fixed, Value>, pthread_mutex_t> {
    @inlinable
    static func make(fixed: Fixed, value: Value) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { _ in LockedParts(fixed: fixed, value: value) }
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        // `create` returns the dynamic type it was called on.
        return unsafeDowncast(buffer, to: LockedStorage.self)
    }

    /// What `body` reads from the fixed part, read in place without the lock.
    @inlinable @inline(__always)
    func readFixed<Result>(_ body: (borrowing Fixed) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointerToHeader { parts in try body(parts.pointee.fixed) }
    }

    @inlinable
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { parts, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&parts.pointee.value)
        }
    }

    // The header (the parts) is deinitialized by ManagedBuffer itself.
    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            _ = mutex.deinitialize(count: 1)
        }
    }
}

/// A part that never changes and a value guarded by a lock, in one
/// allocation (a ``LockedStorage``), to share between threads.
struct FixedAndLocked<Fixed, Value> {
    private let storage: LockedStorage<Fixed, Value>

    init(fixed: Fixed, value: Value) {
        storage = LockedStorage.make(fixed: fixed, value: value)
    }

    /// What `body` reads from the fixed part, read in place without the lock.
    @inline(__always)
    func readFixed<Result>(_ body: (borrowing Fixed) throws -> Result) rethrows -> Result {
        try storage.readFixed(body)
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }
}

// `ManagedBuffer` cannot be `Sendable`; the storage is shared safely: the
// fixed part is written before it is shared and never again, and the value
// is touched only under the lock.
extension FixedAndLocked: @unchecked Sendable where Fixed: Sendable, Value: Sendable {}

// The same for ``Locked``: sendable when what it guards is, so no value that
// may not cross threads crosses them through it.
extension Locked: @unchecked Sendable where Value: Sendable {}
