extension MemoryCache {
    /// A consistent reading of a ``MemoryCache``'s counters and size.
    public struct Statistics: Sendable, Hashable, Codable {
        /// Reads that found a live value.
        public var hits: Int
        /// Reads that found nothing or an expired value.
        public var misses: Int
        /// Entries dropped to respect a limit or by `trim` (not explicit removals, not expirations).
        public var evictions: Int
        /// Entries removed because they had outlived `maxAge` (on read or by `removeExpired()`).
        public var expirations: Int
        /// Entries stored now.
        public var count: Int
        /// Sum of the costs of the entries stored now.
        public var totalCost: Int
        /// The cost limit (`CachePolicy.maxSize`).
        public var costLimit: Int
        /// The count limit (`CachePolicy.maxCount`).
        public var countLimit: Int

        /// Creates a reading from its counters and sizes.
        public init(
            hits: Int, misses: Int, evictions: Int, expirations: Int,
            count: Int, totalCost: Int, costLimit: Int, countLimit: Int
        ) {
            self.hits = hits
            self.misses = misses
            self.evictions = evictions
            self.expirations = expirations
            self.count = count
            self.totalCost = totalCost
            self.costLimit = costLimit
            self.countLimit = countLimit
        }

        /// hits / (hits + misses), or 0 before any read.
        public var hitRate: Double {
            let reads = hits + misses
            return reads == 0 ? 0 : Double(hits) / Double(reads)
        }
    }
}
