import Courier
/// Keys in order of last use, with a cost and a value per key, so a store can
/// find an entry, the least recently used one and the total size in
/// constant time.
///
/// One dictionary from key to its value, cost and slot, and a doubly linked
/// list of slots in an array of 8-byte links. A hit (``entry(_:)`` then
/// ``touch(slot:)``) hashes its key once, reads the value where a plain
/// dictionary would, and relinks in the small array (800 KB for 100,000
/// keys), which stays in the processor's caches far better than slots that
/// also held keys and values. That keeps a hit flat at 100,000 entries.
struct LRUIndex<Key: Hashable, Value> {
    fileprivate struct Entry {
        var value: Value
        var cost: Int
        let slot: Int32
    }

    private struct Link {
        var newer: Int32 = -1
        var older: Int32 = -1
    }

    private var entries: [Key: Entry] = [:]
    private var links: [Link] = []
    /// The key in each slot, read only to find the least recently used one.
    private var keys: [Key?] = []
    /// Slots of removed keys, reused before the arrays grow.
    private var freeSlots: [Int32] = []
    private var newest: Int32 = -1
    private var oldest: Int32 = -1

    /// The sum of every key's cost.
    private(set) var totalCost = 0

    /// How many keys there are.
    var count: Int { entries.count }

    /// The least recently used key.
    var leastRecent: Key? { oldest < 0 ? nil : keys[Int(oldest)] }

    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The value of `key` and its slot (for ``touch(slot:)``), or `nil` when
    /// it is not there.
    func entry(_ key: Key) -> (value: Value, slot: Int)? {
        entries[key].map { ($0.value, Int($0.slot)) }
    }

    /// Adds `key` with `value` (or updates both and its cost) as the most
    /// recently used.
    mutating func insert(_ key: Key, value: Value, cost: Int) {
        // One hash: an existing entry is updated in place by its position.
        if let position = entries.index(forKey: key) {
            let slot = entries.values[position].slot
            totalCost += cost - entries.values[position].cost
            entries.values[position] = Entry(value: value, cost: cost, slot: slot)
            moveToNewest(slot)
            return
        }
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            keys[Int(slot)] = key
        } else {
            slot = Int32(links.count)
            links.append(Link())
            keys.append(key)
        }
        entries[key] = Entry(value: value, cost: cost, slot: slot)
        totalCost += cost
        linkAsNewest(slot)
    }

    /// Marks the key in `slot` as the most recently used.
    mutating func touch(slot: Int) {
        moveToNewest(Int32(slot))
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard let entry = entries.removeValue(forKey: key) else { return false }
        unlink(entry.slot)
        totalCost -= entry.cost
        keys[Int(entry.slot)] = nil
        freeSlots.append(entry.slot)
        return true
    }

    mutating func removeAll() {
        self = LRUIndex()
    }

    // MARK: - Links

    private mutating func moveToNewest(_ slot: Int32) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func linkAsNewest(_ slot: Int32) {
        links[Int(slot)] = Link(newer: -1, older: newest)
        if newest >= 0 { links[Int(newest)].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int32) {
        let link = links[Int(slot)]
        if link.newer >= 0 { links[Int(link.newer)].older = link.older } else { newest = link.older }
        if link.older >= 0 { links[Int(link.older)].newer = link.newer } else { oldest = link.newer }
        links[Int(slot)] = Link()
    }
}
extension LRUIndex: Sendable where Key: Sendable, Value: Sendable {}
extension LRUIndex.Entry: Sendable where Key: Sendable, Value: Sendable {}
