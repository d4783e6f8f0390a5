import Foundation

extension DiskCache {
    /// Writes the accesses recorded in memory to the metadata files now. The access recorder
    /// calls this on its own thread every ``Configuration/accessFlushInterval`` seconds and when
    /// ``Configuration/accessFlushCount`` touches are pending; ``close()`` calls it too.
    public func flushAccesses() {
        flushAccesses(force: false)
    }

    func flushAccesses(force: Bool) {
        // The pending counts stay in the index until their file is written, then the written part is
        // subtracted: a reader of `metadata(forKey:)` meanwhile sees the old file plus every pending
        // access, never a file that lacks accesses already taken out of the index.
        let pending = state.withLock { state -> [(String, Int, Double, String)] in
            if state.closed && !force { return [] }
            var batch: [(String, Int, Double, String)] = []
            batch.reserveCapacity(state.pendingFlush.count)
            for hash in state.pendingFlush {
                guard let entry = state.index[hash], entry.pendingAccesses > 0 else { continue }
                batch.append((hash, entry.pendingAccesses, entry.lastAccess, entry.checksum))
            }
            state.pendingFlush.removeAll(keepingCapacity: true)
            state.pendingTouches = 0
            return batch
        }
        guard !pending.isEmpty else { return }
        var written: [(hash: String, checksum: String, count: Int, stamp: FileStamp?)] = []
        _ = try? commitLock.withLock {
            for (hash, count, lastAccess, checksum) in pending {
                guard var meta = try? readMetadataFile(hash: hash), meta.checksum == checksum else {
                    written.append((hash, checksum, count, nil))  // gone or replaced: its accesses go with it
                    continue
                }
                meta.addAccesses(count, lastAccess: lastAccess)
                guard let stamp = try? replaceFile(metaPath(hash), meta.jsonBytes) else { continue }
                written.append((hash, checksum, count, stamp))
                // Subtract under the lock at once, so the window where the new file and the old
                // pending count are both visible is as short as one lock hand-over.
                state.withLock { state in
                    guard state.index[hash]?.checksum == checksum else { return }
                    state.index[hash]?.pendingAccesses -= count
                    state.index[hash]?.metaStamp = stamp
                }
            }
        }
        state.withLock { state in
            for item in written where item.stamp == nil && state.index[item.hash]?.checksum == item.checksum {
                state.index[item.hash]?.pendingAccesses -= item.count
            }
            // Accesses that were not written (an I/O error) are flushed again next time.
            for (hash, _, _, checksum) in pending
            where (state.index[hash]?.pendingAccesses ?? 0) > 0 && state.index[hash]?.checksum == checksum {
                state.pendingFlush.insert(hash)
            }
        }
    }
}
