import Foundation

extension DiskCache {
    /// What a prune or a removal took away.
    public struct RemovalReport: Sendable, Equatable {
        /// The number of entries removed.
        public var entries = 0
        /// Their bytes of data.
        public var bytes: Int64 = 0
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(key: String) throws -> Bool {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        let removed = try commitLock.withLock {
            let meta = try POSIX.unlink(metaPath(hash))
            let data = try POSIX.unlink(dataPath(hash))
            return meta || data
        }
        state.withLock { _ = $0.remove(hash: hash) }
        return removed
    }

    /// Removes every entry, including those other processes stored.
    @discardableResult
    public func removeAll() throws -> RemovalReport {
        try checkOpen()
        var report = RemovalReport()
        try commitLock.withLock {
            for shard in Self.shardNames {
                let dir = root + "/" + shard
                let names = try POSIX.listDirectory(dir)
                // Metadata first: an entry is uncommitted before its data goes.
                for name in names where name.hasSuffix(".meta.json") {
                    let hash = String(name.dropLast(10))
                    if let st = try POSIX.stat(dataPath(hash)) { report.bytes += Int64(st.st_size) }
                    report.entries += 1
                    try POSIX.unlink(dir + "/" + name)
                }
                for name in names where name.hasSuffix(".data") {
                    try POSIX.unlink(dir + "/" + name)
                }
            }
        }
        state.withLock { $0.removeAllEntries() }
        return report
    }

    /// Removes the entries stored at or after `date`.
    @discardableResult
    public func removeAll(since date: Date) throws -> RemovalReport {
        try checkOpen()
        let cutoff = date.timeIntervalSince1970
        let victims = state.withLock { state in
            state.index.filter { $0.value.created >= cutoff }.map { ($0.key, $0.value) }
        }
        return try remove(victims)
    }

    /// Removes expired entries (past their expiration date or older than `maxAge`), then the
    /// least recently used ones until at most `maxBytes` and `maxCount` remain.
    @discardableResult
    public func prune(maxBytes: Int64? = nil, maxCount: Int? = nil, maxAge: TimeInterval? = nil) throws -> RemovalReport {
        try checkOpen()
        let now = clock.now.timeIntervalSince1970
        let victims = state.withLock { state in
            Self.victims(in: state, now: now, maxBytes: maxBytes ?? .max, maxCount: maxCount ?? .max, maxAge: maxAge)
        }
        return try remove(victims)
    }

    /// Enforces the configured limits; called after every commit. When over a limit it evicts
    /// down to 90% of it, so that a full cache does not sort its index on every write.
    func enforceLimits() throws {
        let config = configuration
        let now = clock.now.timeIntervalSince1970
        let victims = state.withLock { state -> [(String, IndexEntry)] in
            let overBytes = state.totalBytes > config.maxBytes
            let overCount = state.index.count > config.maxCount
            if !overBytes && !overCount {
                // Age alone: drop what has expired, scanning the index at most once per
                // `expirySweepInterval` so that a write stays O(1).
                guard now - state.lastExpirySweep >= Self.expirySweepInterval(config) else { return [] }
                state.lastExpirySweep = now
                return state.index.filter { $0.value.isExpired(now: now, maxAge: config.maxAge) }.map { ($0.key, $0.value) }
            }
            let bytes = overBytes ? config.maxBytes - config.maxBytes / 10 : config.maxBytes
            let count = overCount ? config.maxCount - config.maxCount / 10 : config.maxCount
            return Self.victims(in: state, now: now, maxBytes: bytes, maxCount: count, maxAge: config.maxAge)
        }
        if !victims.isEmpty {
            let removed = try remove(victims)
            state.withLock { $0.evictions += removed.entries }
        }
    }

    /// How often a write may sweep the index for expired entries: a tenth of the age limit,
    /// between 1 and 60 seconds. Reads never serve an entry past its expiration date regardless.
    static func expirySweepInterval(_ config: Configuration) -> Double {
        guard let maxAge = config.maxAge else { return 60 }
        return min(max(maxAge / 10, 1), 60)
    }

    /// Expired entries, then the least recently used, until the rest fits.
    static func victims(in state: State, now: Double, maxBytes: Int64, maxCount: Int, maxAge: TimeInterval?) -> [(String, IndexEntry)] {
        var victims: [(String, IndexEntry)] = []
        var bytes = state.totalBytes
        var count = state.index.count
        var live: [(String, IndexEntry)] = []
        live.reserveCapacity(state.index.count)
        for (hash, entry) in state.index {
            if entry.isExpired(now: now, maxAge: maxAge) {
                victims.append((hash, entry))
                bytes -= entry.size
                count -= 1
            } else {
                live.append((hash, entry))
            }
        }
        if bytes > maxBytes || count > maxCount {
            live.sort { $0.1.lastAccess < $1.1.lastAccess }
            for item in live {
                if bytes <= maxBytes && count <= maxCount { break }
                victims.append(item)
                bytes -= item.1.size
                count -= 1
            }
        }
        return victims
    }

    /// Removes the given entries unless another process replaced them meanwhile.
    func remove(_ victims: [(String, IndexEntry)]) throws -> RemovalReport {
        var report = RemovalReport()
        if victims.isEmpty { return report }
        try commitLock.withLock {
            for (hash, entry) in victims {
                if let meta = try? readMetadataFile(hash: hash), meta.checksum != entry.checksum { continue }
                try POSIX.unlink(metaPath(hash))
                try POSIX.unlink(dataPath(hash))
                report.entries += 1
                report.bytes += entry.size
            }
        }
        state.withLock { state in
            for (hash, entry) in victims where state.index[hash]?.checksum == entry.checksum {
                state.remove(hash: hash)
            }
        }
        return report
    }
}
