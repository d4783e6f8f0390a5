import Synchronization

/// Remembers the cache keys seen in a run, in bounded memory.
///
/// Keys are kept as 64-bit hashes (a false "seen" needs two of the last `capacity` keys to share
/// 64 bits: about 1 in 10^7 for a million keys). Once `capacity` keys are held the memory is
/// cleared and filling starts again, so memory stays flat for any list length; a duplicate further
/// apart than that is fetched through the cache again, which answers it without a download while
/// it is fresh.
final class DuplicateFilter: Sendable {
    private let capacity: Int
    private let seen: Mutex<Set<Int>>

    /// Default capacity one million keys (about 16 MiB at most).
    init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
        seen = Mutex(Set(minimumCapacity: min(self.capacity, 1 << 16)))
    }

    /// Records `key`; true when it was seen before.
    func isDuplicate(_ key: String) -> Bool {
        let hash = key.hashValue
        return seen.withLock { seen in
            if seen.contains(hash) { return true }
            if seen.count >= capacity { seen.removeAll(keepingCapacity: true) }
            seen.insert(hash)
            return false
        }
    }
}
