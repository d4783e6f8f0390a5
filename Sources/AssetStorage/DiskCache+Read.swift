#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// The bytes stored for `key`, or `nil` when there is no whole, matching entry.
    ///
    /// A hit records the access in memory (see ``touch(key:)``) and writes nothing. The first
    /// read of an entry in this process, and any read after its file changed on disk, checks the
    /// footer, the metadata and the data's checksum; an entry that fails is removed.
    public func data(forKey key: String) throws -> Data? {
        try read(key: key) { file in
            var data = Data(count: Int(file.size))
            let got = try data.withUnsafeMutableBytes { try POSIX.readFully(file.fd, into: $0, "an entry file") }
            return got == Int(file.size) ? data : nil
        }
    }

    /// The bytes stored for `key` as an array; see ``data(forKey:)``.
    public func bytes(forKey key: String) throws -> [UInt8]? {
        try read(key: key) { file in
            var bytes = [UInt8](repeating: 0, count: Int(file.size))
            let got = try bytes.withUnsafeMutableBytes { try POSIX.readFully(file.fd, into: $0, "an entry file") }
            return got == Int(file.size) ? bytes : nil
        }
    }

    /// Whether a whole entry is stored for `key` (by the index, or the file's footer; no checksum,
    /// no touch).
    public func contains(key: String) -> Bool {
        let digest = KeyDigest(key: key)
        guard let (fd, stamp) = try? openEntry(digest) else { return false }
        defer { POSIX.close(fd) }
        if let record = state.withLock({ $0.index.record(for: digest) }), record.inode == stamp.inode, record.fileSize == stamp.size {
            return true
        }
        return (try? Self.readFooter(fd: fd, fileSize: stamp.size)) != nil
    }

    /// The metadata of the entry for `key`, with accesses not yet flushed counted in; `nil`
    /// when there is none. Does not count as an access.
    public func metadata(forKey key: String) throws -> CacheMetadata? {
        try metadata(forKey: key, prefixCount: 0)?.metadata
    }

    /// The metadata of the entry for `key` and up to `prefixCount` first bytes of its data, read
    /// from the same open file (for sniffing a format; not checked against the checksum, not an
    /// access); `nil` when there is no entry.
    public func metadata(forKey key: String, prefixCount: Int) throws -> (metadata: CacheMetadata, prefix: [UInt8])? {
        try checkOpen()
        let digest = KeyDigest(key: key)
        guard let (fd, stamp) = try openEntry(digest) else { return nil }
        defer { POSIX.close(fd) }
        guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size),
              var meta = try currentMetadata(digest, fd: fd, footer: footer, key: key)
        else { return nil }
        state.withLock { state in
            if let record = state.index.record(for: digest), record.identity == footer.checksum.identity {
                meta.addAccesses(Int(record.pendingAccesses), lastAccess: record.lastAccess)
            } else {
                var record = IndexRecord(digest: digest, footer: footer, inode: stamp.inode, lastAccess: meta.lastAccessTime.timeIntervalSince1970)
                record.expiration = meta.expirationDate?.timeIntervalSince1970
                state.insert(record)
            }
        }
        var prefix = [UInt8](repeating: 0, count: Int(min(Int64(max(0, prefixCount)), footer.dataSize)))
        if !prefix.isEmpty {
            let got = try prefix.withUnsafeMutableBytes { try POSIX.readFully(fd, into: $0, "an entry file") }
            prefix.removeLast(prefix.count - got)
        }
        return (meta, prefix)
    }

    /// An open entry file as ``read(key:bodyChecksData:_:)`` hands it over: its data is the first
    /// `size` bytes.
    struct OpenEntry {
        let fd: Int32
        let size: Int64
        /// The whole file's length (data, metadata, footer).
        let fileSize: Int64
        /// The checksum the data must have, when this read must check it (the file was not verified
        /// in this process yet); nil when the file is the one already verified.
        let checksum: ContentChecksum?
    }

    /// Opens the entry file, checks it and hands it to `body`, which reads `size` bytes. Counts a
    /// hit or a miss and touches the entry on a hit. When `bodyChecksData` is true, `body` hashes
    /// what it reads and returns nil on a mismatch, so the data is not read twice.
    ///
    /// A hit of a verified entry costs an open, an `fstat`, the read and a close: when the file is
    /// the one last verified (inode, modification time, length), nothing is parsed or hashed again.
    func read<T>(key: String, bodyChecksData: Bool = false, _ body: (OpenEntry) throws -> T?) throws -> T? {
        try Self.validate(key: key)
        try checkOpen()
        let digest = KeyDigest(key: key)
        guard let (fd, stamp) = try openEntry(digest) else {
            forget(digest, miss: true)
            return nil
        }
        defer { POSIX.close(fd) }
        let now = clock.now.timeIntervalSince1970
        var record = state.withLock { $0.index.record(for: digest) }
        var unverified: EntryFooter?
        if record == nil || !record!.isVerified(stamp) {
            guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size),
                  let meta = try currentMetadata(digest, fd: fd, footer: footer, key: key)
            else {
                try removeCorrupt(digest, inode: stamp.inode)
                return nil
            }
            unverified = footer
            var fresh = IndexRecord(digest: digest, footer: footer, inode: stamp.inode, lastAccess: meta.lastAccessTime.timeIntervalSince1970)
            fresh.expiration = meta.expirationDate?.timeIntervalSince1970
            record = state.withLock { state in
                fresh.inherit(from: state.index.record(for: digest))
                state.insert(fresh)
                return fresh
            }
        }
        guard let current = record else { return nil }
        if current.isExpired(now: now, maxAge: configuration.maxAge) {
            _ = try removeEntryFile(digest, unlessReplacedSince: .inode(stamp.inode))
            state.withLock { state in
                state.remove(digest, ifIdentity: current.identity)
                state.misses += 1
            }
            return nil
        }
        let file = OpenEntry(fd: fd, size: current.size, fileSize: stamp.size, checksum: unverified?.checksum)
        guard let value = try body(file) else {
            try removeCorrupt(digest, inode: stamp.inode)
            return nil
        }
        if let footer = unverified, !bodyChecksData {
            guard try checksum(fd: fd, size: footer.dataSize, algorithm: footer.checksum.algorithm) == footer.checksum else {
                try removeCorrupt(digest, inode: stamp.inode)
                return nil
            }
        }
        touch(digest, verified: stamp, identity: current.identity, countHit: true, now: now)
        return value
    }

    /// Records an access to `key`'s entry in memory; the access recorder writes it later.
    public func touch(key: String) {
        touch(KeyDigest(key: key), verified: nil, identity: nil, countHit: false, now: clock.now.timeIntervalSince1970)
    }

    func touch(_ digest: KeyDigest, verified: FileStamp?, identity: ContentIdentity?, countHit: Bool, now: Double) {
        let flushNow = state.withLock { state -> Bool in
            var queue = false, matched = false
            state.index.update(digest) { record in
                if let identity, record.identity != identity { return }
                matched = true
                record.lastAccess = max(record.lastAccess, now)
                record.pendingAccesses &+= 1
                if let verified { record.markVerified(verified) }
                if !record.queuedForFlush {
                    record.queuedForFlush = true
                    queue = true
                }
            }
            guard matched else { return false }
            if queue { state.pendingFlush.append(digest) }
            if countHit { state.hits += 1 }
            state.pendingTouches += 1
            return state.pendingTouches >= configuration.accessFlushCount
        }
        if flushNow { flushAccesses() }
    }

    func forget(_ digest: KeyDigest, miss: Bool) {
        state.withLock { state in
            state.remove(digest)
            if miss { state.misses += 1 }
        }
    }

    /// Removes an entry whose file disagrees with itself, unless another process has replaced the
    /// file meanwhile; counts a miss.
    @discardableResult
    func removeCorrupt(_ digest: KeyDigest, inode: UInt64) throws -> Bool {
        let removed = try removeEntryFile(digest, unlessReplacedSince: .inode(inode))
        state.withLock { state in
            if state.index.record(for: digest)?.inode == inode { state.remove(digest) }
            state.misses += 1
        }
        return removed
    }
}
