import Foundation

extension DiskCache {
    /// A snapshot of the cache's size and use.
    public struct Statistics: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int64
        /// The byte limit (``Configuration/maxBytes``).
        public var capacity: Int64
        /// The entry limit (``Configuration/maxCount``).
        public var maxCount: Int
        /// Entries and bytes per kind (kinds with no entries are left out).
        public var perKind: [AssetKind: KindStatistics]
        /// Reads served, reads that found nothing usable, entries evicted by the limits, since open.
        public var hits: Int
        public var misses: Int
        public var evictions: Int
    }

    public struct KindStatistics: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int64
    }

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
