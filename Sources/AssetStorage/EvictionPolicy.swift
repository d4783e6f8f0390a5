/// Which entry a ``MemoryCache`` drops first when it is over its cost or count limit.
///
/// Every policy evicts in O(1).
public enum EvictionPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Least recently used first: a read or a write makes an entry the most recent. The default.
    case lru
    /// Least frequently used first (O(1) frequency buckets, after Shah, Mitra and Matani, 2010).
    ///
    /// An entry's frequency starts at 1 and grows by one on each hit and each overwrite; among entries of
    /// equal frequency the least recently used goes first.
    case lfu
    /// First in, first out: reads do not matter, and overwriting a key's value keeps the key's place in
    /// the queue (it entered when it was first stored).
    case fifo
    /// Closest to expiry first: the entry written longest ago goes first, and overwriting a key's value
    /// renews it (moves it to the back). With ``CachePolicy/maxAge`` set, the order of eviction is the
    /// order of expiry, and ``MemoryCache/removeExpired()`` costs only the entries it removes.
    case ttl
}
