import Foundation
import Synchronization

/// Building the index when the cache opens (and on ``DiskCache/reloadIndex()``): the directory
/// listing is the truth, the snapshot of the last close (or the index in memory) a cache of what
/// each file's footer says.
///
/// Each shard folder is listed with the inode of every name (`getdents`, no `stat`). An entry file
/// whose inode is the one the snapshot recorded for its key is taken from the snapshot as it is;
/// any other is opened and its footer read (an open, an `fstat`, a `pread` of 96 bytes). Records of
/// files that are gone are dropped. Shards are listed by four workers at once.
extension DiskCache {
    /// What one shard's listing found, beyond the snapshot's records.
    private struct ShardFindings {
        /// Positions in the known index (4 bytes each, not 32 for a digest: a million entries open).
        var matched: [Int32] = []
        var fresh: [IndexRecord] = []
        var broken: [(KeyDigest, UInt64)] = []
        var sidecars: [KeyDigest] = []
        var legacy: [KeyDigest] = []
        var removedTemporaries = 0
    }

    /// Builds the index from the directory, taking unchanged files' records from `previous` (the
    /// index in memory, for a reload) or, when nil, from the snapshot; cleans what it finds broken.
    func scanDirectory(previous: CacheIndex?) throws -> (State, OpenReport) {
        var report = OpenReport()
        try cleanTemporaries(&report)
        // The workers read the known records while the listing runs; the merge then changes the same
        // index in place (no second copy of a million records while opening).
        var index = previous ?? readSnapshot()
        let parts: [ShardFindings]
        do {
            let known = index
            let results = Mutex<[ShardFindings]>([])
            let failure = Mutex<(any Error)?>(nil)
            let workers = 4
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var findings = ShardFindings()
                do {
                    for shard in stride(from: worker, to: Self.shardNames.count, by: workers) {
                        try scanShard(shard, known: known, into: &findings)
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
                results.withLock { $0.append(findings) }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            parts = results.withLock { $0 }
        }

        index.forEachMutable { $0.seen = false }
        for part in parts {
            for position in part.matched { index[Int(position)].seen = true }
        }
        report.fromSnapshot = parts.reduce(0) { $0 + $1.matched.count }
        report.removedTemporaries += parts.reduce(0) { $0 + $1.removedTemporaries }
        // A file read anew keeps what this process knew of the same commit (a reload's pending touches).
        var fresh: [IndexRecord] = []
        for part in parts {
            for var record in part.fresh {
                record.inherit(from: index.record(for: record.digest))
                fresh.append(record)
            }
        }
        var gone: [KeyDigest] = []
        index.forEach { if !$0.seen { gone.append($0.digest) } }
        for digest in gone { index.remove(digest) }
        for record in fresh { index.insert(record) }
        index.forEachMutable { $0.seen = false }
        var state = State()
        state.index = consume index
        state.index.forEach { record in
            state.totalBytes += record.size
            state.perKind[record.kind, default: KindTotals()].entries += 1
            state.perKind[record.kind, default: KindTotals()].bytes += record.size
            if record.pendingAccesses > 0 { state.pendingFlush.append(record.digest) }
        }
        for part in parts {
            for (digest, inode) in part.broken where try removeEntryFile(digest, unlessReplacedSince: .inode(inode)) {
                report.removedCorrupt += 1
            }
            for digest in part.legacy {
                switch try migrateLegacyEntry(digest) {
                case .migrated(let record):
                    state.insert(record)
                    report.migrated += 1
                case .corrupt: report.removedCorrupt += 1
                case .orphan: report.removedOrphans += 1
                case .skipped: break
                }
            }
        }
        for part in parts {
            for digest in part.sidecars where state.index.record(for: digest) == nil {
                if try removeOrphanSidecar(digest) { report.removedOrphans += 1 }
            }
        }
        report.entries = state.index.count
        return (state, report)
    }

    private func scanShard(_ shard: Int, known: CacheIndex, into findings: inout ShardFindings) throws {
        let dir = root + "/" + Self.shardNames[shard]
        var sidecars = Set<KeyDigest>()
        var unknown: [KeyDigest] = []
        try POSIX.forEachShardName(dir) { name in
            switch name {
            case .entry(let digest, let inode):
                if let position = known.position(of: digest), known[position].inode == inode {
                    findings.matched.append(Int32(position))
                } else {
                    unknown.append(digest)
                }
            case .sidecar(let digest):
                sidecars.insert(digest)
                findings.sidecars.append(digest)
            case .legacyData(let digest):
                findings.legacy.append(digest)
            case .temporary(let name):
                if try removeIfStale(temporary: dir + "/" + name) { findings.removedTemporaries += 1 }
            }
        }
        for digest in unknown {
            guard let (fd, stamp) = try openEntry(digest) else { continue }  // removed meanwhile
            defer { POSIX.close(fd) }
            guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size) else {
                findings.broken.append((digest, stamp.inode))
                continue
            }
            var record = IndexRecord(digest: digest, footer: footer, inode: stamp.inode)
            if sidecars.contains(digest), let meta = readSidecar(digest, checksum: footer.checksum.string) {
                record.lastAccess = max(record.lastAccess, meta.lastAccessTime.timeIntervalSince1970)
                record.expiration = meta.expirationDate?.timeIntervalSince1970
            }
            findings.fresh.append(record)
        }
    }

    /// Removes a `.meta.json` whose entry is gone (checked again just before).
    private func removeOrphanSidecar(_ digest: KeyDigest) throws -> Bool {
        let dir = rootFD
        let hasEntry = try digest.withRelativePath(".entry") { try POSIX.statAt(dir, $0) } != nil
        let hasLegacy = try digest.withRelativePath(".data") { try POSIX.statAt(dir, $0) } != nil
        guard !hasEntry && !hasLegacy else { return false }
        return try POSIX.unlink(path(digest, ".meta.json"))
    }

    /// Temporary files (in `tmp/` and in the shard folders) are named `<pid>-...tmp`; those of
    /// processes that are gone, or older than a day, are removed.
    private func cleanTemporaries(_ report: inout OpenReport) throws {
        for name in try POSIX.listDirectory(tmpDir) where try removeIfStale(temporary: tmpDir + "/" + name) {
            report.removedTemporaries += 1
        }
    }

    private func removeIfStale(temporary path: String) throws -> Bool {
        let name = path.split(separator: "/").last ?? ""
        let pid = Int32(name.prefix { $0 != "-" }) ?? 0
        var stale = !POSIX.processIsAlive(pid)
        if !stale, let st = try POSIX.stat(path), Double(st.st_mtim.tv_sec) < clock.now.timeIntervalSince1970 - 86_400 { stale = true }
        return try stale && POSIX.unlink(path)
    }
}
