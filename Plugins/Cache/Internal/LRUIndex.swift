import Courier
/// Keys in order of last use, with a cost and a value per key, so a store can
/// find an entry, the least recently used one and the total size in
/// constant time.
///
/// A doubly linked list of slots in an array, found through one dictionary
/// from key to slot: a hit (``slot(of:)``, ``value(at:)``, ``touch(slot:)``)
/// hashes its key once, and relinking neighbours is array indexing. That
/// keeps a hit flat (and cheap) at 100,000 entries.
struct LRUIndex<Key: Hashable, Value> {
    private struct Slot {
        var key: Key?
        var value: Value?
        var cost = 0
        var newer = -1
        var older = -1
    }

    private var slotOfKey: [Key: Int] = [:]
    private var slots: [Slot] = []
    /// Slots of removed keys, reused before the array grows.
    private var freeSlots: [Int] = []
    private var newest = -1
    private var oldest = -1

    /// The sum of every key's cost.
    private(set) var totalCost = 0

    /// How many keys there are.
    var count: Int { slotOfKey.count }

    /// The least recently used key.
    var leastRecent: Key? { oldest < 0 ? nil : slots[oldest].key }

    func contains(_ key: Key) -> Bool { slotOfKey[key] != nil }

    /// The slot of `key`, or `nil` when it is not there.
    func slot(of key: Key) -> Int? { slotOfKey[key] }

    /// The value in a slot ``slot(of:)`` returned.
    func value(at slot: Int) -> Value? { slots[slot].value }

    /// Adds `key` with `value` (or updates both and its cost) as the most
    /// recently used.
    mutating func insert(_ key: Key, value: Value, cost: Int) {
        if let slot = slotOfKey[key] {
            totalCost += cost - slots[slot].cost
            slots[slot].cost = cost
            slots[slot].value = value
            moveToNewest(slot)
            return
        }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            slots[slot] = Slot(key: key, value: value, cost: cost)
        } else {
            slot = slots.count
            slots.append(Slot(key: key, value: value, cost: cost))
        }
        slotOfKey[key] = slot
        totalCost += cost
        linkAsNewest(slot)
    }

    /// Marks the key in `slot` as the most recently used.
    mutating func touch(slot: Int) {
        moveToNewest(slot)
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard let slot = slotOfKey.removeValue(forKey: key) else { return false }
        unlink(slot)
        totalCost -= slots[slot].cost
        slots[slot] = Slot()
        freeSlots.append(slot)
        return true
    }

    mutating func removeAll() {
        self = LRUIndex()
    }

    // MARK: - Links

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (slots[slot].newer, slots[slot].older)
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }
}
