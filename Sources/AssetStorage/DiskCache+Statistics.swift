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
                misses: state.misses, evictions: state.evictions)
        }
    }

    /// Bytes of entry data held (the running total of the index).
    public var totalBytes: Int64 { state.withLock { $0.totalBytes } }

    /// The keys of the entries the index holds.
    public var keys: [String] { state.withLock { $0.index.values.map(\.key) } }

    /// Rebuilds the index from the directory, picking up what other processes stored or removed.
    @discardableResult
    public func reloadIndex() throws -> OpenReport {
        try checkOpen()
        let (scanned, report) = try scanDirectory()
        state.withLock { state in
            let (hits, misses, evictions) = (state.hits, state.misses, state.evictions)
            var next = scanned
            for (hash, old) in state.index {
                guard var entry = next.index[hash], entry.checksum == old.checksum else { continue }
                entry.inherit(from: old)
                next.index[hash] = entry
                if entry.pendingAccesses > 0 { next.pendingFlush.insert(hash) }
            }
            next.pendingTouches = state.pendingTouches
            next.hits = hits
            next.misses = misses
            next.evictions = evictions
            state = next
        }
        return report
    }
}
