extension DiskCache {
    /// Per-kind running totals.
    struct KindTotals: Sendable {
        var entries = 0
        var bytes: Int64 = 0
    }

    /// Everything the mutex guards.
    struct State: Sendable {
        var index = CacheIndex()
        var totalBytes: Int64 = 0
        var perKind: [AssetKind: KindTotals] = [:]
        /// Entries with touches to flush (each once: see ``IndexRecord/queuedForFlush``).
        var pendingFlush: [KeyDigest] = []
        /// Touches since the last flush (one entry read ten times counts ten).
        var pendingTouches = 0
        var hits = 0
        var misses = 0
        var evictions = 0
        /// Stores that failed on the disk (full, read-only, gone, out of descriptors) since open.
        var failedStores = 0
        var closed = false
        /// When the last sweep for expired entries ran (seconds since 1970).
        var lastExpirySweep: Double = 0

        /// Adds or replaces the record for its digest; returns the one replaced.
        @discardableResult
        mutating func insert(_ record: IndexRecord) -> IndexRecord? {
            let old = index.insert(record)
            if let old { subtractTotals(old) }
            totalBytes += record.size
            perKind[record.kind, default: KindTotals()].entries += 1
            perKind[record.kind, default: KindTotals()].bytes += record.size
            return old
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
        mutating func remove(_ digest: KeyDigest) -> IndexRecord? {
            guard let old = index.remove(digest) else { return nil }
            subtractTotals(old)
            return old
        }

        /// Removes the record for `digest` when it is still the commit `identity`.
        mutating func remove(_ digest: KeyDigest, ifIdentity identity: ContentIdentity) {
            if index.record(for: digest)?.identity == identity { remove(digest) }
        }

        private mutating func subtractTotals(_ record: IndexRecord) {
            totalBytes -= record.size
            perKind[record.kind, default: KindTotals()].entries -= 1
            perKind[record.kind, default: KindTotals()].bytes -= record.size
        }
    }

    /// What opening the cache found and cleaned.
    public struct OpenReport: Sendable, Equatable {
        /// Whole entries found.
        public var entries = 0
        /// Of those, the entries taken from the index snapshot (their file is the one the snapshot
        /// describes) without reading the file.
        public var fromSnapshot = 0
        /// Entry files that were not whole (no valid footer), and old-layout entries whose metadata
        /// was unreadable or whose data disagreed with it; removed.
        public var removedCorrupt = 0
        /// `.meta.json` files of entries that are gone, and old-layout data files without metadata; removed.
        public var removedOrphans = 0
        /// Temporary files of writers that are gone; removed.
        public var removedTemporaries = 0
        /// Entries of the two-file layout (`.data` + `.meta.json`) turned into entry files.
        public var migrated = 0
    }
}
