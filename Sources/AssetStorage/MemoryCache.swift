import Foundation
import Synchronization

/// A thread-safe in-memory cache with a cost limit, a count limit, an optional entry lifetime and a
/// choice of eviction policy, with O(1) get, set, remove and eviction.
///
/// ```swift
/// let cache = MemoryCache<String, Bitmap>(policy: .init(maxSize: 256 << 20, maxCount: 5_000))
/// cache.set(bitmap, forKey: url, cost: bitmap.byteCount)
/// if let hit = cache.value(forKey: url) { ... }
/// ```
///
/// - **Limits**: after every write, the cache evicts entries in the order of its
///   ``CachePolicy/evictionPolicy`` until the total cost is at most ``CachePolicy/maxSize`` and the count
///   at most ``CachePolicy/maxCount``. The entry being written is never its own victim.
/// - **Too large**: an entry whose cost exceeds the whole cost limit is not stored, and any value
///   already stored under its key is removed (so that a stale value is not served); `set` returns false.
/// - **Lifetime**: with ``CachePolicy/maxAge``, a read of an entry written `maxAge` seconds ago or more
///   (by the injected clock) removes it and is a miss. Expired entries that nobody reads are removed
///   by eviction as usual, or at once by ``removeExpired()``.
/// - **Concurrency**: a `Mutex` guards a value-type state (a slab of nodes linked by index and a
///   dictionary from key to slot); the clock is read outside the lock, and no operation allocates an
///   object per entry.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The limits and eviction policy this cache was created with.
    public let policy: CachePolicy
    @usableFromInline let clock: any CacheClock
    @usableFromInline let expires: Bool
    @usableFromInline let state: Mutex<Storage>

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - policy: limits, lifetime and eviction policy; ``CachePolicy/default`` (64 MiB, 10,000 entries,
    ///     no lifetime, LRU) unless given.
    ///   - clock: the time source for entry ages; the system clock unless given.
    public init(policy: CachePolicy = .default, clock: any CacheClock = SystemClock()) {
        self.policy = policy
        self.clock = clock
        self.expires = policy.maxAge != nil
        self.state = Mutex(Storage(policy: policy))
    }

    @inlinable
    var nowSeconds: Double { clock.now.timeIntervalSinceReferenceDate }

    /// The value stored for `key`, or nil on a miss (absent or expired). A hit counts as a use for the
    /// eviction policy (LRU: most recent; LFU: one more use).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let now = expires ? nowSeconds : 0
        return state.withLock { $0.value(forKey: key, now: now) }
    }

    /// The value stored for `key` (as ``value(forKey:)``), or nil.
    @inlinable
    public subscript(key: Key) -> Value? {
        value(forKey: key)
    }

    /// Stores `value` for `key` with a cost (its size in bytes, say), evicting other entries as needed.
    ///
    /// - Returns: true if the value was stored; false if its cost exceeds the cache's whole cost limit (or
    ///   the count limit is zero), in which case any value already stored for `key` is removed too.
    ///   A negative cost counts as zero.
    @inlinable
    @discardableResult
    public func set(_ value: Value, forKey key: Key, cost: Int = 0) -> Bool {
        let now = nowSeconds
        return state.withLock { $0.set(value, forKey: key, cost: cost, now: now) }
    }

    /// Removes the value stored for `key`; returns it, or nil if there was none. Not an eviction.
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { $0.removeValue(forKey: key) }
    }

    /// True if a live (unexpired) value is stored for `key`. Not a use: changes neither the eviction
    /// order nor the statistics.
    public func contains(_ key: Key) -> Bool {
        let now = expires ? nowSeconds : 0
        return state.withLock { state in
            guard let i = state.index[key] else { return false }
            return now - state.nodes[Int(i)].storedAt < state.maxAge
        }
    }

    /// Removes every entry and releases the storage. Statistics counters are kept.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Evicts entries in policy order until the total cost is at most `cost` (what a server calls under
    /// memory pressure). Counted as evictions.
    ///
    /// - Returns: the number of entries evicted.
    @discardableResult
    public func trim(toCost cost: Int) -> Int {
        state.withLock { $0.trim(toCost: cost) }
    }

    /// Evicts entries in policy order until at most `count` remain. Counted as evictions.
    ///
    /// - Returns: the number of entries evicted.
    @discardableResult
    public func trim(toCount count: Int) -> Int {
        state.withLock { $0.trim(toCount: count) }
    }

    /// Removes every expired entry now rather than when it is read or evicted; counted as expirations.
    ///
    /// O(number removed) with ``EvictionPolicy/ttl`` (its list is in order of writing, given a clock that
    /// does not go back); a scan of all entries with the other policies. Does nothing without a `maxAge`.
    ///
    /// - Returns: the number of entries removed.
    @discardableResult
    public func removeExpired() -> Int {
        let now = nowSeconds
        return state.withLock { $0.removeExpired(now: now) }
    }

    /// The number of entries stored (expired ones not yet removed included).
    public var count: Int {
        state.withLock { $0.count }
    }

    /// The sum of the costs of the entries stored.
    public var totalCost: Int {
        state.withLock { $0.totalCost }
    }

    /// The keys in eviction order, the next victim first (for inspection and tests: O(n)).
    public var keysInEvictionOrder: [Key] {
        state.withLock { state in
            state.indicesInEvictionOrder().compactMap { state.nodes[Int($0)].key }
        }
    }

    /// Counters and current size, read atomically.
    public var statistics: Statistics {
        state.withLock { state in
            Statistics(
                hits: state.hits,
                misses: state.misses,
                evictions: state.evictions,
                expirations: state.expirations,
                count: state.count,
                totalCost: state.totalCost,
                costLimit: state.maxCost,
                countLimit: state.maxCount
            )
        }
    }

    /// Sets the hit, miss, eviction and expiration counters to zero.
    public func resetStatistics() {
        state.withLock { state in
            state.hits = 0
            state.misses = 0
            state.evictions = 0
            state.expirations = 0
        }
    }
}
