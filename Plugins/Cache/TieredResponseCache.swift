import Courier
import Foundation

/// A fast store in front of a lasting one, usually ``MemoryResponseCache``
/// over ``DiskResponseCache``: reads try the first, then the second (and copy
/// a hit up); writes and removals go to both.
///
/// ```swift
/// let cache = TieredResponseCache(MemoryResponseCache(), over: try DiskResponseCache(directory: directory))
/// ```
public final class TieredResponseCache: ResponseCaching {
    /// The store read first.
    public let front: any ResponseCaching
    /// The store behind it.
    public let back: any ResponseCaching
    // One lock over read-and-copy, store and remove: without it a removal
    // between reading the back store and copying to the front would be
    // undone by the copy.
    private let lock = Locked(())

    /// Puts `front` over `back`.
    /// - Parameters:
    ///   - front: The store read first, usually in memory.
    ///   - back: The store behind it, usually on disk.
    public init(_ front: any ResponseCaching, over back: any ResponseCaching) {
        self.front = front
        self.back = back
    }

    /// The entry for `key`, from the front store or else the back one (copied to the front).
    public func entry(forKey key: String) -> CachedResponse? {
        lock.withLock { _ in
            if let entry = front.entry(forKey: key) { return entry }
            guard let entry = back.entry(forKey: key) else { return nil }
            front.store(entry, forKey: key)
            return entry
        }
    }

    /// Stores `entry` in both stores, back first.
    public func store(_ entry: CachedResponse, forKey key: String) {
        lock.withLock { _ in
            back.store(entry, forKey: key)
            front.store(entry, forKey: key)
        }
    }

    /// Removes the entry for `key`.
    public func removeEntry(forKey key: String) {
        lock.withLock { _ in
            front.removeEntry(forKey: key)
            back.removeEntry(forKey: key)
        }
    }

    /// The back store's digest: the one that lasts, and so the one whose
    /// keys must stay the same after a restart.
    public func fingerprint(of value: Data) -> String {
        back.fingerprint(of: value)
    }

    /// Removes every entry.
    public func removeAll() {
        lock.withLock { _ in
            front.removeAll()
            back.removeAll()
        }
    }
}
