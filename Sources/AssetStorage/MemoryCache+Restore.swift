extension MemoryCache.Storage {
    /// Stores an entry with a given write time and (LFU) use count, as a snapshot load does: the entry
    /// becomes the most recent of its frequency. Returns false when it is too large to store.
    @usableFromInline
    mutating func restore(_ value: Value, forKey key: Key, cost rawCost: Int, storedAt: Double, frequency: Int) -> Bool {
        let cost = max(0, rawCost)
        if let i = index[key] { remove(at: i) }
        guard cost <= maxCost, maxCount > 0 else { return false }
        while index.count >= maxCount || totalCost > maxCost - cost {
            guard evictOne(protecting: -1) else { break }
        }
        let i = allocate(Node(key: key, value: value, cost: cost, storedAt: storedAt, bucket: -1))
        index[key] = i
        totalCost += cost
        pushFront(i, bucket: policy == .lfu ? bucketForNewEntry(frequency: max(1, frequency)) : 0)
        return true
    }
}
