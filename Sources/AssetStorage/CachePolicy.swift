import Foundation

/// The limits and eviction policy of a ``MemoryCache``.
///
/// A limit of `Int.max` means no limit. Negative limits are treated as zero (a cache that stores nothing).
public struct CachePolicy: Sendable, Hashable, Codable {
    /// How long an entry may be served after it was written, in seconds; `nil` (the default) means forever.
    ///
    /// Checked on read against the cache's clock: an expired entry is removed and the read is a miss.
    public var maxAge: TimeInterval?
    /// The cost limit, in bytes (or whatever unit the costs passed to `set` use). Default 64 MiB.
    public var maxSize: Int
    /// The entry count limit. Default 10,000.
    public var maxCount: Int
    /// Which entry to evict first when over a limit. Default ``EvictionPolicy/lru``.
    public var evictionPolicy: EvictionPolicy

    /// Creates a policy; every parameter defaults to the value documented on its property.
    public init(
        maxAge: TimeInterval? = nil,
        maxSize: Int = 64 * 1024 * 1024,
        maxCount: Int = 10_000,
        evictionPolicy: EvictionPolicy = .lru
    ) {
        self.maxAge = maxAge
        self.maxSize = maxSize
        self.maxCount = maxCount
        self.evictionPolicy = evictionPolicy
    }

    /// 64 MiB, 10,000 entries, no lifetime, LRU: a general-purpose cache for one kind of asset.
    public static let `default` = CachePolicy()

    /// Caches a lot and for long: 512 MiB, 100,000 entries, no lifetime, LFU (a popular entry survives
    /// a scan of one-off entries). For a server with memory to spare and a skewed, stable working set.
    public static let aggressive = CachePolicy(
        maxAge: nil,
        maxSize: 512 * 1024 * 1024,
        maxCount: 100_000,
        evictionPolicy: .lfu
    )

    /// Caches little and briefly: 16 MiB, 1,000 entries, entries live 5 minutes (300 s), LRU. For
    /// memory-constrained processes or values that go stale quickly.
    public static let conservative = CachePolicy(
        maxAge: 300,
        maxSize: 16 * 1024 * 1024,
        maxCount: 1_000,
        evictionPolicy: .lru
    )
}
