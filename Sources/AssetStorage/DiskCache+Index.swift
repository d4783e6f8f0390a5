import Foundation
import Synchronization

extension DiskCache {
    /// One entry as the in-memory index knows it.
    struct IndexEntry: Sendable {
        var key: String
        var size: Int64
        var kind: AssetKind
        var created: Double
        var lastAccess: Double
        var expiration: Double?
        var checksum: String
        /// Touches not yet written to the metadata file.
        var pendingAccesses: Int = 0
        /// The data file as it was when its checksum last matched; `nil` until verified.
        var verified: FileStamp?
        /// The metadata file this entry was read from; `nil` until a read has looked at it.
        var metaStamp: FileStamp?

        init(
            key: String, size: Int64, kind: AssetKind, created: Double, lastAccess: Double,
            expiration: Double?, checksum: String, metaStamp: FileStamp?
        ) {
            self.key = key
            self.size = size
            self.kind = kind
            self.created = created
            self.lastAccess = lastAccess
            self.expiration = expiration
            self.checksum = checksum
            self.metaStamp = metaStamp
        }

        init(_ meta: CacheMetadata) {
            key = meta.key
            size = meta.size
            kind = meta.kind
            created = meta.createdDate.timeIntervalSince1970
            lastAccess = meta.lastAccessTime.timeIntervalSince1970
            expiration = meta.expirationDate?.timeIntervalSince1970
            checksum = meta.checksum
        }

        /// Keeps what this process knows of the same commit (the same checksum) that the
        /// metadata file does not say: the verified data stamp, unflushed touches, the last access.
        mutating func inherit(from old: IndexEntry?) {
            guard let old, old.checksum == checksum else { return }
            verified = old.verified
            pendingAccesses = old.pendingAccesses
            lastAccess = max(lastAccess, old.lastAccess)
        }

        func isExpired(now: Double, maxAge: TimeInterval?) -> Bool {
            if let expiration, expiration <= now { return true }
            if let maxAge, created + maxAge <= now { return true }
            return false
        }
    }

    /// Per-kind running totals.
    struct KindTotals: Sendable {
        var entries = 0
        var bytes: Int64 = 0
    }

    /// Everything the mutex guards.
    struct State: Sendable {
        var index: [String: IndexEntry] = [:]
        var totalBytes: Int64 = 0
        var perKind: [AssetKind: KindTotals] = [:]
        var pendingFlush: Set<String> = []
        /// Touches since the last flush (one entry read ten times counts ten).
        var pendingTouches = 0
        var hits = 0
        var misses = 0
        var evictions = 0
        var closed = false
        /// When the last sweep for expired entries ran (seconds since 1970).
        var lastExpirySweep: Double = 0

        mutating func insert(_ entry: IndexEntry, hash: String) {
            if let old = index.updateValue(entry, forKey: hash) {
                subtractTotals(old)
            }
            totalBytes += entry.size
            perKind[entry.kind, default: KindTotals()].entries += 1
            perKind[entry.kind, default: KindTotals()].bytes += entry.size
        }

        /// Forgets every entry (the counters of hits, misses and evictions stay).
        mutating func removeAllEntries() {
            index.removeAll()
            totalBytes = 0
            perKind.removeAll()
            pendingFlush.removeAll()
            pendingTouches = 0
        }

        @discardableResult
        mutating func remove(hash: String) -> IndexEntry? {
            guard let old = index.removeValue(forKey: hash) else { return nil }
            subtractTotals(old)
            pendingFlush.remove(hash)
            return old
        }

        private mutating func subtractTotals(_ entry: IndexEntry) {
            totalBytes -= entry.size
            perKind[entry.kind, default: KindTotals()].entries -= 1
            perKind[entry.kind, default: KindTotals()].bytes -= entry.size
        }
    }

    /// What opening the cache found and cleaned.
    public struct OpenReport: Sendable, Equatable {
        /// Whole entries found.
        public var entries = 0
        /// Of those, the entries taken from the index snapshot (their metadata file unchanged
        /// since the cache last closed) without reading the metadata file.
        public var fromSnapshot = 0
        /// Entries whose metadata was unreadable or whose data was missing; removed.
        public var removedCorrupt = 0
        /// Data files without metadata (a write cut short); removed.
        public var removedOrphans = 0
        /// Temporary files of writers that are gone; removed.
        public var removedTemporaries = 0
    }

    /// The shard folder names: `00` ... `ff`.
    static let shardNames: [String] = (0..<256).map { i in
        let digits = Array("0123456789abcdef")
        return String([digits[i >> 4], digits[i & 15]])
    }

    /// Reads every shard and builds the index; cleans temporary files and orphans on the way.
    /// Shards are read in parallel (the cost is system calls, one open and read per entry).
    func scanDirectory() throws -> (State, OpenReport) {
        var report = OpenReport()
        try cleanTemporaries(&report)
        let snapshot = readSnapshot()
        let results = Mutex<[(entries: [(String, IndexEntry)], report: OpenReport)]>([])
        let failure = Mutex<(any Error)?>(nil)
        let workers = 4
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var entries: [(String, IndexEntry)] = []
            var partial = OpenReport()
            do {
                for shard in stride(from: worker, to: Self.shardNames.count, by: workers) {
                    try scanShard(Self.shardNames[shard], snapshot: snapshot, into: &entries, &partial)
                }
            } catch {
                failure.withLock { $0 = error }
            }
            results.withLock { $0.append((entries, partial)) }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        var state = State()
        let parts = results.withLock { $0 }
        state.index.reserveCapacity(parts.reduce(0) { $0 + $1.entries.count })
        for (entries, partial) in parts {
            for (hash, entry) in entries { state.insert(entry, hash: hash) }
            report.entries += partial.entries
            report.fromSnapshot += partial.fromSnapshot
            report.removedCorrupt += partial.removedCorrupt
            report.removedOrphans += partial.removedOrphans
        }
        return (state, report)
    }

    private func scanShard(
        _ shard: String, snapshot: [Substring: (FileStamp, IndexEntry)],
        into entries: inout [(String, IndexEntry)], _ report: inout OpenReport
    ) throws {
        let names = try POSIX.listDirectory(root + "/" + shard)
        if names.isEmpty { return }
        var dataFiles = Set<Substring>()
        var metaFiles: [Substring] = []
        for name in names {
            if name.hasSuffix(".meta.json") {
                metaFiles.append(name.dropLast(10))
            } else if name.hasSuffix(".data") {
                dataFiles.insert(name.dropLast(5))
            }
        }
        for hashSub in metaFiles {
            let hash = String(hashSub)
            let hasData = dataFiles.remove(hashSub) != nil
            // The stamp is taken before the file is read: if the file changes in between, the
            // stamp is the older one and the next open reads the file again.
            let metaStamp = hasData ? (try? POSIX.statAt(rootFD, relativeMetaPath(hash))).flatMap { $0 }.map(FileStamp.init) : nil
            if let metaStamp, let (stamp, entry) = snapshot[hashSub], stamp == metaStamp {
                entries.append((hash, entry))
                report.entries += 1
                report.fromSnapshot += 1
            } else if let metaStamp, let meta = try? readMetadataFile(hash: hash) {
                var entry = IndexEntry(meta)
                entry.metaStamp = metaStamp
                entries.append((hash, entry))
                report.entries += 1
            } else if try removeIfStillBroken(hash: hash) {
                report.removedCorrupt += 1
            } else if let meta = try readMetadataFile(hash: hash) {
                // Another process committed it while we looked.
                entries.append((hash, IndexEntry(meta)))
                report.entries += 1
            }
        }
        for orphan in dataFiles {
            let hash = String(orphan)
            let removed = try commitLock.withLock { () -> Bool in
                guard try POSIX.statAt(rootFD, relativeMetaPath(hash)) == nil else { return false }
                return try POSIX.unlink(dataPath(hash))
            }
            if removed { report.removedOrphans += 1 }
        }
    }

    /// Removes an entry whose metadata is unreadable or whose data is missing, after checking
    /// again under the commit lock (another process may be committing it right now).
    func removeIfStillBroken(hash: String) throws -> Bool {
        try commitLock.withLock {
            let metaOK = (try? readMetadataFile(hash: hash)) != nil
            let dataOK = try POSIX.stat(dataPath(hash)) != nil
            if metaOK && dataOK { return false }
            let a = try POSIX.unlink(metaPath(hash))
            let b = try POSIX.unlink(dataPath(hash))
            return a || b
        }
    }

    /// Reads and checks one metadata file; `nil` when it is missing, unreadable or not for
    /// this hash.
    func readMetadataFile(hash: String) throws -> CacheMetadata? {
        guard let bytes = try POSIX.readSmallFile(rootFD, relativeMetaPath(hash), limit: CacheMetadata.maxFileSize),
              let meta = CacheMetadata(jsonBytes: bytes),
              CacheKeyHash.fileName(for: meta.key) == hash
        else { return nil }
        return meta
    }

    /// Temporary files are named `<pid>-<n>.tmp`; those of processes that are gone, or older
    /// than a day, are removed.
    private func cleanTemporaries(_ report: inout OpenReport) throws {
        let dayAgo = clock.now.timeIntervalSince1970 - 86_400
        for name in try POSIX.listDirectory(tmpDir) {
            let path = tmpDir + "/" + name
            let pid = Int32(name.prefix { $0 != "-" }) ?? 0
            var stale = !POSIX.processIsAlive(pid)
            if !stale, let st = try POSIX.stat(path), Double(st.st_mtim.tv_sec) < dayAgo { stale = true }
            if stale, try POSIX.unlink(path) { report.removedTemporaries += 1 }
        }
    }
}
