import Courier
/// Keys in order of last use, with a cost per key, so a store can find the
/// least recently used entry and its total size in constant time.
///
/// A doubly linked list threaded through a dictionary: every operation is
/// O(1), which keeps hits flat at 100,000 entries.
struct LRUIndex<Key: Hashable> {
    private struct Node {
        var cost: Int
        var newer: Key?
        var older: Key?
    }

    private var nodes: [Key: Node] = [:]
    private var newest: Key?
    private var oldest: Key?

    /// The sum of every key's cost.
    private(set) var totalCost = 0

    /// How many keys there are.
    var count: Int { nodes.count }

    /// The least recently used key.
    var leastRecent: Key? { oldest }

    func contains(_ key: Key) -> Bool { nodes[key] != nil }

    /// Adds `key` (or updates its cost) as the most recently used.
    mutating func insert(_ key: Key, cost: Int) {
        remove(key)
        nodes[key] = Node(cost: cost, newer: nil, older: newest)
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
        totalCost += cost
    }

    /// Marks `key` as the most recently used.
    mutating func touch(_ key: Key) {
        guard let node = nodes[key] else { return }
        insert(key, cost: node.cost)
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: Key) -> Bool {
        guard let node = nodes.removeValue(forKey: key) else { return false }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        totalCost -= node.cost
        return true
    }

    mutating func removeAll() {
        nodes = [:]
        newest = nil
        oldest = nil
        totalCost = 0
    }
}
