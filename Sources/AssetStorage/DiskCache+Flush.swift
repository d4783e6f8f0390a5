import Foundation

extension DiskCache {
    /// Writes the accesses recorded in memory to the metadata files now. The access recorder
    /// calls this on its own thread every ``Configuration/accessFlushInterval`` seconds and when
    /// ``Configuration/accessFlushCount`` touches are pending; ``close()`` calls it too.
    public func flushAccesses() {
        flushAccesses(force: false)
    }

    func flushAccesses(force: Bool) {
        let pending = state.withLock { state -> [(String, Int, Double, String)] in
            if state.closed && !force { return [] }
            var batch: [(String, Int, Double, String)] = []
            batch.reserveCapacity(state.pendingFlush.count)
            for hash in state.pendingFlush {
                guard var entry = state.index[hash], entry.pendingAccesses > 0 else { continue }
                batch.append((hash, entry.pendingAccesses, entry.lastAccess, entry.checksum))
                entry.pendingAccesses = 0
                state.index[hash] = entry
            }
            state.pendingFlush.removeAll(keepingCapacity: true)
            state.pendingTouches = 0
            return batch
        }
        guard !pending.isEmpty else { return }
        var stamps: [(String, String, FileStamp)] = []
        _ = try? commitLock.withLock {
            for (hash, count, lastAccess, checksum) in pending {
                guard var meta = try? readMetadataFile(hash: hash), meta.checksum == checksum else { continue }
                meta.addAccesses(count, lastAccess: lastAccess)
                if let stamp = try? replaceFile(metaPath(hash), meta.jsonBytes) {
                    stamps.append((hash, checksum, stamp))
                }
            }
        }
        state.withLock { state in
            for (hash, checksum, stamp) in stamps where state.index[hash]?.checksum == checksum {
                state.index[hash]?.metaStamp = stamp
            }
        }
    }
}
