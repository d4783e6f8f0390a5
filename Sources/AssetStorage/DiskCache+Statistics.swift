import Foundation

extension DiskCache {
    /// A snapshot of the cache's size and use.
    public struct Statistics: Sendable, Equatable {
        /// The number of entries.
        public var entries: Int
        /// The bytes of entry data (metadata files not counted).
        public var bytes: Int64
        /// The byte limit (``Configuration/maxBytes``).
        public var capacity: Int64
        /// The entry limit (``Configuration/maxCount``).
        public var maxCount: Int
        /// Entries and bytes per kind (kinds with no entries are left out).
        public var perKind: [AssetKind: KindStatistics]
        /// Reads served, since the cache opened.
        public var hits: Int
        /// Reads that found no usable entry, since the cache opened.
        public var misses: Int
        /// Entries removed to keep within the limits, since the cache opened.
        public var evictions: Int
        /// Stores the disk refused (full, read-only, the directory gone, no descriptors), since open.
        public var failedStores: Int
        /// Bytes the index holds in memory (its records and its table).
        public var indexBytes: Int
    }

    /// The entries of one kind and their size.
    public struct KindStatistics: Sendable, Equatable {
        /// The number of entries of the kind.
        public var entries: Int
        /// Their bytes of data.
        public var bytes: Int64
    }

    /// The cache's size and use now, from the in-memory index (no file is read).
    public var statistics: Statistics {
        state.withLock { state in
            var perKind: [AssetKind: KindStatistics] = [:]
            for (kind, totals) in state.perKind where totals.entries > 0 {
                perKind[kind] = KindStatistics(entries: totals.entries, bytes: totals.bytes)
            }
            return Statistics(
                entries: state.index.count, bytes: state.totalBytes, capacity: configuration.maxBytes,
                maxCount: configuration.maxCount, perKind: perKind, hits: state.hits,
                misses: state.misses, evictions: state.evictions, failedStores: state.failedStores,
                indexBytes: state.index.memoryFootprint)
        }
    }

    /// Bytes of entry data held (the running total of the index).
    public var totalBytes: Int64 { state.withLock { $0.totalBytes } }

    /// The keys of the entries the index holds. The index keeps no keys: each is read from its
    /// entry file (an open and a read per entry), so this is for tools and tests, not hot paths.
    public var keys: [String] {
        let digests = state.withLock { state in state.index.filter { _ in true }.map(\.digest) }
        return digests.compactMap { digest in
            guard let (fd, stamp) = try? openEntry(digest) else { return nil }
            defer { POSIX.close(fd) }
            guard let footer = (try? Self.readFooter(fd: fd, fileSize: stamp.size)) ?? nil else { return nil }
            return (try? Self.readEmbeddedMetadata(fd: fd, footer: footer))??.key
        }
    }

    /// The metadata of the entry whose file name (its key's SHA-256 in hex) is `hash`, with
    /// accesses not yet flushed counted in; nil when there is none. For `assetpipe cache show HASH`.
    public func metadata(forHash hash: String) throws -> CacheMetadata? {
        try checkOpen()
        guard let digest = KeyDigest(hex: hash.lowercased()) else {
            throw StorageError(.invalidArgument, "\(hash) is not a 64-digit hex SHA-256")
        }
        guard let (fd, stamp) = try openEntry(digest) else { return nil }
        defer { POSIX.close(fd) }
        guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size),
              var meta = try currentMetadata(digest, fd: fd, footer: footer)
        else { return nil }
        state.withLock { state in
            if let record = state.index.record(for: digest), record.identity == footer.checksum.identity {
                meta.addAccesses(Int(record.pendingAccesses), lastAccess: record.lastAccess)
            }
        }
        return meta
    }

    /// Rebuilds the index from the directory, picking up what other processes stored or removed.
    @discardableResult
    public func reloadIndex() throws -> OpenReport {
        try checkOpen()
        let current = state.withLock { $0.index }
        let (scanned, report) = try scanDirectory(previous: current)
        state.withLock { state in
            var next = scanned
            next.pendingTouches = state.pendingTouches
            next.hits = state.hits
            next.misses = state.misses
            next.evictions = state.evictions
            next.failedStores = state.failedStores
            next.lastExpirySweep = state.lastExpirySweep
            state = next
        }
        return report
    }
}
