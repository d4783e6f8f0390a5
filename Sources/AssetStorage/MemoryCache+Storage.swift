extension MemoryCache {
    /// The cache's state: a slab of nodes linked into lists by index, guarded by the cache's mutex.
    ///
    /// Nodes live in one manually managed buffer (no uniqueness or bounds checks on the hot path) and
    /// are linked by `Int32` indices (no per-entry object, so no allocation or reference counting per
    /// operation); freed slots stay initialized, with no key or value, and form a free list through
    /// `next`. The buffers grow by doubling. `~Copyable`, so that it owns them and frees them in `deinit`.
    /// Entries sit in buckets, each a doubly linked list from most recent (`head`) to least recent
    /// (`tail`), and the buckets form a list from the one evicted first (`firstBucket`). For LRU, FIFO
    /// and TTL there is one bucket, index 0, that is never freed; for LFU each bucket holds the entries
    /// of one frequency, in increasing order of frequency.
    @usableFromInline
    struct Storage: ~Copyable {
        @usableFromInline
        struct Node {
            @usableFromInline var key: Key?
            @usableFromInline var value: Value?
            @usableFromInline var cost: Int
            /// When the value was written, in seconds since the reference date.
            @usableFromInline var storedAt: Double
            @usableFromInline var prev: Int32
            @usableFromInline var next: Int32
            @usableFromInline var bucket: Int32

            @inlinable
            init(key: Key, value: Value, cost: Int, storedAt: Double, bucket: Int32) {
                self.key = key
                self.value = value
                self.cost = cost
                self.storedAt = storedAt
                self.prev = -1
                self.next = -1
                self.bucket = bucket
            }
        }

        @usableFromInline
        struct Bucket {
            @usableFromInline var frequency: Int
            @usableFromInline var head: Int32 = -1
            @usableFromInline var tail: Int32 = -1
            @usableFromInline var prev: Int32 = -1
            @usableFromInline var next: Int32 = -1

            @inlinable
            init(frequency: Int) {
                self.frequency = frequency
            }
        }

        /// `nodeCount` initialized slots (live or free) of `nodeCapacity`.
        @usableFromInline var nodes: UnsafeMutablePointer<Node>
        @usableFromInline var nodeCount = 0
        @usableFromInline var nodeCapacity: Int
        @usableFromInline var freeNode: Int32 = -1
        @usableFromInline var index: [Key: Int32] = [:]
        /// `bucketCount` initialized slots of `bucketCapacity` (a trivial type: nothing to deinitialize).
        @usableFromInline var buckets: UnsafeMutablePointer<Bucket>
        @usableFromInline var bucketCount = 0
        @usableFromInline var bucketCapacity: Int
        @usableFromInline var freeBucket: Int32 = -1
        @usableFromInline var firstBucket: Int32 = -1
        @usableFromInline var lastBucket: Int32 = -1
        @usableFromInline var totalCost = 0
        @usableFromInline var hits = 0
        @usableFromInline var misses = 0
        @usableFromInline var evictions = 0
        @usableFromInline var expirations = 0

        @usableFromInline let maxCost: Int
        @usableFromInline let maxCount: Int
        /// `maxAge` in seconds, `.infinity` when entries do not expire.
        @usableFromInline let maxAge: Double
        @usableFromInline let policy: EvictionPolicy

        @usableFromInline
        init(policy: CachePolicy) {
            maxCost = max(0, policy.maxSize)
            // Slots are addressed by Int32: at most Int32.max - 1 entries.
            maxCount = min(max(0, policy.maxCount), Int(Int32.max) - 1)
            maxAge = policy.maxAge ?? .infinity
            self.policy = policy.evictionPolicy
            nodeCapacity = 16
            nodes = .allocate(capacity: nodeCapacity)
            bucketCapacity = 16
            buckets = .allocate(capacity: bucketCapacity)
            resetBuckets()
        }

        deinit {
            nodes.deinitialize(count: nodeCount)
            nodes.deallocate()
            buckets.deallocate()
        }

        @usableFromInline
        var count: Int { index.count }

        @usableFromInline
        mutating func resetBuckets() {
            bucketCount = 0
            freeBucket = -1
            firstBucket = -1
            lastBucket = -1
            if policy != .lfu {
                buckets.initialize(to: Bucket(frequency: 0))
                bucketCount = 1
                firstBucket = 0
                lastBucket = 0
            }
        }

        // MARK: reads and writes

        @inlinable
        mutating func value(forKey key: Key, now: Double) -> Value? {
            guard let i = index[key] else {
                misses &+= 1
                return nil
            }
            if now - nodes[Int(i)].storedAt >= maxAge {
                remove(at: i)
                expirations &+= 1
                misses &+= 1
                return nil
            }
            hits &+= 1
            switch policy {
            case .lru: moveToFront(i)
            case .lfu: promote(i)
            case .fifo, .ttl: break
            }
            return nodes[Int(i)].value
        }

        @inlinable
        mutating func set(_ value: Value, forKey key: Key, cost rawCost: Int, now: Double) -> Bool {
            let cost = max(0, rawCost)
            guard cost <= maxCost, maxCount > 0 else {
                // Too large to store: drop the old value too, so that a stale one is not served.
                if let i = index[key] { remove(at: i) }
                return false
            }
            if let i = index[key] {
                let n = Int(i)
                totalCost += cost - nodes[n].cost
                nodes[n].value = value
                nodes[n].cost = cost
                nodes[n].storedAt = now
                switch policy {
                case .lru, .ttl: moveToFront(i)
                case .lfu: promote(i)
                case .fifo: break
                }
                evictIfNeeded(protecting: i)
            } else {
                // Make room first, so that a new entry is never its own victim.
                while index.count >= maxCount || totalCost > maxCost - cost {
                    guard evictOne(protecting: -1) else { break }
                }
                let i = allocate(Node(key: key, value: value, cost: cost, storedAt: now, bucket: -1))
                index[key] = i
                totalCost += cost
                if policy == .lfu {
                    pushFront(i, bucket: bucketForNewEntry(frequency: 1))
                } else {
                    pushFront(i, bucket: 0)
                }
            }
            return true
        }

        @inlinable
        @discardableResult
        mutating func removeValue(forKey key: Key) -> Value? {
            guard let i = index[key] else { return nil }
            return remove(at: i)
        }

        @usableFromInline
        mutating func removeAll() {
            nodes.deinitialize(count: nodeCount)
            nodes.deallocate()
            nodeCount = 0
            nodeCapacity = 16
            nodes = .allocate(capacity: nodeCapacity)
            freeNode = -1
            index = [:]
            totalCost = 0
            resetBuckets()
        }

        /// Evicts in policy order until the total cost is at most `cost`; returns how many were evicted.
        @usableFromInline
        mutating func trim(toCost cost: Int) -> Int {
            var evicted = 0
            while totalCost > max(0, cost), evictOne(protecting: -1) { evicted += 1 }
            return evicted
        }

        /// Evicts in policy order until at most `count` entries remain; returns how many were evicted.
        @usableFromInline
        mutating func trim(toCount count: Int) -> Int {
            var evicted = 0
            while index.count > max(0, count), evictOne(protecting: -1) { evicted += 1 }
            return evicted
        }

        /// Removes every expired entry; returns how many.
        @usableFromInline
        mutating func removeExpired(now: Double) -> Int {
            guard maxAge.isFinite else { return 0 }
            var removed = 0
            if policy == .ttl {
                // The list is in order of writing: stop at the first live entry.
                var i = buckets[0].tail
                while i != -1, now - nodes[Int(i)].storedAt >= maxAge {
                    let older = nodes[Int(i)].prev
                    remove(at: i)
                    removed += 1
                    i = older
                }
            } else {
                for n in 0..<nodeCount where nodes[n].key != nil && now - nodes[n].storedAt >= maxAge {
                    remove(at: Int32(n))
                    removed += 1
                }
            }
            expirations &+= removed
            return removed
        }

        // MARK: eviction

        @inlinable
        mutating func evictIfNeeded(protecting protected: Int32) {
            while index.count > maxCount || totalCost > maxCost {
                guard evictOne(protecting: protected) else { return }
            }
        }

        /// Evicts the first victim in policy order other than `protected`; false when there is none.
        @inlinable
        mutating func evictOne(protecting protected: Int32) -> Bool {
            var b = firstBucket
            while b != -1 {
                var victim = buckets[Int(b)].tail
                if victim == protected { victim = nodes[Int(victim)].prev }
                if victim != -1 {
                    remove(at: victim)
                    evictions &+= 1
                    return true
                }
                b = buckets[Int(b)].next
            }
            return false
        }

        // MARK: nodes

        @inlinable
        mutating func allocate(_ node: Node) -> Int32 {
            if freeNode != -1 {
                let i = freeNode
                freeNode = nodes[Int(i)].next
                nodes[Int(i)] = node
                return i
            }
            if nodeCount == nodeCapacity {
                let grown = UnsafeMutablePointer<Node>.allocate(capacity: nodeCapacity * 2)
                grown.moveInitialize(from: nodes, count: nodeCount)
                nodes.deallocate()
                nodes = grown
                nodeCapacity *= 2
            }
            (nodes + nodeCount).initialize(to: node)
            nodeCount += 1
            return Int32(nodeCount - 1)
        }

        @inlinable
        @discardableResult
        mutating func remove(at i: Int32) -> Value? {
            let n = Int(i)
            unlink(i)
            if nodes[n].bucket != -1, policy == .lfu, buckets[Int(nodes[n].bucket)].head == -1 {
                freeBucketSlot(nodes[n].bucket)
            }
            if let key = nodes[n].key { index.removeValue(forKey: key) }
            totalCost -= nodes[n].cost
            let value = nodes[n].value
            nodes[n].key = nil
            nodes[n].value = nil
            nodes[n].cost = 0
            nodes[n].bucket = -1
            nodes[n].prev = -1
            nodes[n].next = freeNode
            freeNode = i
            return value
        }

        /// Takes node `i` out of its bucket's list (the bucket is left in place, even when empty).
        @inlinable
        mutating func unlink(_ i: Int32) {
            let n = Int(i)
            let b = Int(nodes[n].bucket)
            let prev = nodes[n].prev
            let next = nodes[n].next
            if prev != -1 { nodes[Int(prev)].next = next } else { buckets[b].head = next }
            if next != -1 { nodes[Int(next)].prev = prev } else { buckets[b].tail = prev }
            nodes[n].prev = -1
            nodes[n].next = -1
        }

        /// Makes node `i` (not in any list) the most recent of bucket `b`.
        @inlinable
        mutating func pushFront(_ i: Int32, bucket b: Int32) {
            let n = Int(i)
            let oldHead = buckets[Int(b)].head
            nodes[n].bucket = b
            nodes[n].prev = -1
            nodes[n].next = oldHead
            if oldHead != -1 { nodes[Int(oldHead)].prev = i } else { buckets[Int(b)].tail = i }
            buckets[Int(b)].head = i
        }

        @inlinable
        mutating func moveToFront(_ i: Int32) {
            let b = nodes[Int(i)].bucket
            guard buckets[Int(b)].head != i else { return }
            unlink(i)
            pushFront(i, bucket: b)
        }

        // MARK: inspection

        /// The live entries' node indices in eviction order (the next victim first).
        @usableFromInline
        func indicesInEvictionOrder() -> [Int32] {
            var result: [Int32] = []
            result.reserveCapacity(index.count)
            var b = firstBucket
            while b != -1 {
                var i = buckets[Int(b)].tail
                while i != -1 {
                    result.append(i)
                    i = nodes[Int(i)].prev
                }
                b = buckets[Int(b)].next
            }
            return result
        }
    }
}
