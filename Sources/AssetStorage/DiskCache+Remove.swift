import Foundation

extension DiskCache {
    /// What a prune or a removal took away.
    public struct RemovalReport: Sendable, Equatable {
        /// The number of entries removed.
        public var entries = 0
        /// Their bytes of data.
        public var bytes: Int64 = 0
    }

    /// Which version of an entry file a removal means.
    enum ExpectedFile {
        /// The file with this inode.
        case inode(UInt64)
        /// Whatever file is there.
        case any
    }

    /// Removes the entry file of `digest` (and its `.meta.json`) when it is still the version
    /// `expected`; returns whether it removed it.
    ///
    /// No lock: the file is first renamed aside (atomic: it takes whatever is under the name), then
    /// looked at; when another process had replaced it meanwhile, it is linked back under its name
    /// (unless an even newer one has arrived, which then stays), so a removal never takes away a
    /// commit it did not mean.
    @discardableResult
    func removeEntryFile(_ digest: KeyDigest, unlessReplacedSince expected: ExpectedFile) throws -> Bool {
        let final = path(digest, ".entry")
        guard case .inode(let inode) = expected else {
            let removed = try POSIX.unlink(final)
            _ = try? POSIX.unlink(path(digest, ".meta.json"))
            return removed
        }
        let aside = temporaryPath()
        do {
            try POSIX.rename(final, aside)
        } catch let error as StorageError where error.errno == ENOENT {
            return false
        }
        guard let st = try POSIX.stat(aside), UInt64(st.st_ino) == inode else {
            _ = try? POSIX.link(aside, final)  // fails when a newer commit is there: it stays
            _ = try? POSIX.unlink(aside)
            return false
        }
        try POSIX.unlink(aside)
        _ = try? POSIX.unlink(path(digest, ".meta.json"))
        return true
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    public func remove(key: String) throws -> Bool {
        try Self.validate(key: key)
        try checkOpen()
        let digest = KeyDigest(key: key)
        let removed = try removeEntryFile(digest, unlessReplacedSince: .any)
        state.withLock { _ = $0.remove(digest) }
        return removed
    }

    /// Removes every entry, including those other processes stored.
    @discardableResult
    public func removeAll() throws -> RemovalReport {
        try checkOpen()
        var report = RemovalReport()
        for shard in Self.shardNames {
            let dir = root + "/" + shard
            var entries: [KeyDigest] = []
            var others: [String] = []
            try POSIX.forEachShardName(dir) { name in
                switch name {
                case .entry(let digest, _): entries.append(digest)
                case .sidecar(let digest): others.append(dir + "/" + digest.hex + ".meta.json")
                case .legacyData(let digest): others.append(dir + "/" + digest.hex + ".data")
                case .temporary: break  // a writer's, still writing or cleaned when a cache opens
                }
            }
            for digest in entries {
                if let (fd, stamp) = try openEntry(digest) {
                    report.bytes += (try? Self.readFooter(fd: fd, fileSize: stamp.size))??.dataSize ?? 0
                    POSIX.close(fd)
                }
                if try POSIX.unlink(path(digest, ".entry")) { report.entries += 1 }
            }
            for path in others { try POSIX.unlink(path) }
        }
        state.withLock { $0.removeAllEntries() }
        return report
    }

    /// Removes the entries stored at or after `date`.
    @discardableResult
    public func removeAll(since date: Date) throws -> RemovalReport {
        try checkOpen()
        let cutoff = date.timeIntervalSince1970
        let victims = state.withLock { $0.index.filter { $0.created >= cutoff } }
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
        let victims = state.withLock { state -> [IndexRecord] in
            let overBytes = state.totalBytes > config.maxBytes
            let overCount = state.index.count > config.maxCount
            if !overBytes && !overCount {
                // Age alone: drop what has expired, scanning the index at most once per
                // `expirySweepInterval` so that a write stays O(1).
                guard now - state.lastExpirySweep >= Self.expirySweepInterval(config) else { return [] }
                state.lastExpirySweep = now
                return state.index.filter { $0.isExpired(now: now, maxAge: config.maxAge) }
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
    static func victims(in state: State, now: Double, maxBytes: Int64, maxCount: Int, maxAge: TimeInterval?) -> [IndexRecord] {
        var victims: [IndexRecord] = []
        var bytes = state.totalBytes
        var count = state.index.count
        var live: [(lastAccess: Double, record: IndexRecord)] = []
        live.reserveCapacity(state.index.count)
        state.index.forEach { record in
            if record.isExpired(now: now, maxAge: maxAge) {
                victims.append(record)
                bytes -= record.size
                count -= 1
            } else {
                live.append((record.lastAccess, record))
            }
        }
        if bytes > maxBytes || count > maxCount {
            live.sort { $0.lastAccess < $1.lastAccess }
            for item in live {
                if bytes <= maxBytes && count <= maxCount { break }
                victims.append(item.record)
                bytes -= item.record.size
                count -= 1
            }
        }
        return victims
    }

    /// Removes the given entries unless another process replaced them meanwhile.
    func remove(_ victims: [IndexRecord]) throws -> RemovalReport {
        var report = RemovalReport()
        for record in victims where try removeEntryFile(record.digest, unlessReplacedSince: .inode(record.inode)) {
            report.entries += 1
            report.bytes += record.size
        }
        if !victims.isEmpty {
            state.withLock { state in
                for record in victims { state.remove(record.digest, ifIdentity: record.identity) }
            }
        }
        return report
    }
}
