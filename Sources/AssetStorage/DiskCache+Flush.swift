import Foundation

extension DiskCache {
    /// Writes the accesses recorded in memory to the entries' `.meta.json` files now. The access
    /// recorder calls this on its own thread every ``Configuration/accessFlushInterval`` seconds and
    /// when ``Configuration/accessFlushCount`` touches are pending; ``close()`` calls it too.
    public func flushAccesses() {
        flushAccesses(force: false)
    }

    func flushAccesses(force: Bool) {
        // The pending counts stay in the index until their file is written, then the written part is
        // subtracted: a reader of `metadata(forKey:)` meanwhile sees the old file plus every pending
        // access, never a file that lacks accesses already taken out of the index.
        let pending = state.withLock { state -> [(KeyDigest, UInt32, Double, ContentIdentity)] in
            if state.closed && !force { return [] }
            var batch: [(KeyDigest, UInt32, Double, ContentIdentity)] = []
            batch.reserveCapacity(state.pendingFlush.count)
            for digest in state.pendingFlush {
                state.index.update(digest) { record in
                    record.queuedForFlush = false
                    if record.pendingAccesses > 0 {
                        batch.append((digest, record.pendingAccesses, record.lastAccess, record.identity))
                    }
                }
            }
            state.pendingFlush.removeAll(keepingCapacity: true)
            state.pendingTouches = 0
            return batch
        }
        guard !pending.isEmpty else { return }
        var failed: [(KeyDigest, ContentIdentity)] = []
        _ = try? commitLock.withLock {
            for (digest, count, lastAccess, identity) in pending {
                // false: the entry is gone or replaced, and its accesses go with it.
                guard (try? writeAccesses(digest, count: count, lastAccess: lastAccess, identity: identity)) != nil else {
                    failed.append((digest, identity))
                    continue
                }
                // Subtract at once, so the window where the new file and the old pending count are
                // both visible is as short as one lock hand-over.
                _ = state.withLock { state in
                    state.index.update(digest) { record in
                        if record.identity == identity { record.pendingAccesses -= min(count, record.pendingAccesses) }
                    }
                }
            }
        }
        // Accesses that were not written (an I/O error) are flushed again next time.
        state.withLock { state in
            for (digest, identity) in failed {
                var queue = false
                state.index.update(digest) { record in
                    if record.identity == identity && record.pendingAccesses > 0 && !record.queuedForFlush {
                        record.queuedForFlush = true
                        queue = true
                    }
                }
                if queue { state.pendingFlush.append(digest) }
            }
        }
    }

    /// Adds `count` accesses to the entry's `.meta.json` (made from the committed metadata when
    /// there is none yet); false when the entry is gone or is another commit now.
    private func writeAccesses(_ digest: KeyDigest, count: UInt32, lastAccess: Double, identity: ContentIdentity) throws -> Bool {
        guard let (fd, stamp) = try openEntry(digest) else { return false }
        defer { POSIX.close(fd) }
        guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size), footer.checksum.identity == identity,
              var meta = try currentMetadata(digest, fd: fd, footer: footer)
        else { return false }
        meta.addAccesses(Int(count), lastAccess: lastAccess)
        try replaceFile(path(digest, ".meta.json"), beside: digest, meta.jsonBytes)
        return true
    }
}
