#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

extension DiskCache {
    /// The bytes stored for `key`, or `nil` when there is no whole, matching entry.
    ///
    /// A hit records the access in memory (see ``touch(key:)``) and writes nothing. The first
    /// read of an entry in this process, and any read after its data file changed on disk,
    /// checks the data's SHA-256 against the metadata; an entry that fails is removed.
    public func data(forKey key: String) throws -> Data? {
        try read(key: key) { file in
            var data = Data(count: Int(file.size))
            let got = try data.withUnsafeMutableBytes { try POSIX.readFully(file.fd, into: $0, file.path) }
            return got == Int(file.size) ? data : nil
        }
    }

    /// The bytes stored for `key` as an array; see ``data(forKey:)``.
    public func bytes(forKey key: String) throws -> [UInt8]? {
        try read(key: key) { file in
            var bytes = [UInt8](repeating: 0, count: Int(file.size))
            let got = try bytes.withUnsafeMutableBytes { try POSIX.readFully(file.fd, into: $0, file.path) }
            return got == Int(file.size) ? bytes : nil
        }
    }

    /// Whether a whole entry is stored for `key` (by the index and the files; no checksum, no touch).
    public func contains(key: String) -> Bool {
        let hash = CacheKeyHash.fileName(for: key)
        if state.withLock({ $0.index[hash] != nil }) { return (try? POSIX.stat(dataPath(hash))) != nil }
        return (try? readMetadataFile(hash: hash)) != nil && (try? POSIX.stat(dataPath(hash))) != nil
    }

    /// The metadata of the entry for `key`, with accesses not yet flushed counted in; `nil`
    /// when there is none. Does not count as an access.
    public func metadata(forKey key: String) throws -> CacheMetadata? {
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        guard var meta = try readMetadataFile(hash: hash) else { return nil }
        state.withLock { state in
            if let entry = state.index[hash], entry.checksum == meta.checksum {
                meta.addAccesses(entry.pendingAccesses, lastAccess: entry.lastAccess)
            } else {
                state.insert(IndexEntry(meta), hash: hash)
            }
        }
        return meta
    }

    /// An open data file as ``read(key:bodyChecksData:_:)`` hands it over.
    struct OpenEntry {
        let fd: Int32
        let size: Int64
        let path: String
        /// The SHA-256 the data must have.
        let checksum: String
    }

    /// Opens the data file of a checked entry and hands it to `body`, which reads `size` bytes.
    /// Counts a hit or a miss and touches the entry on a hit. When `bodyChecksData` is true,
    /// `body` hashes what it reads and returns nil on a mismatch, so the data is not read twice.
    ///
    /// A hit costs a `stat` of the metadata file, an open, an `fstat` and the read: when both
    /// files are as they were when last checked, nothing is parsed or hashed again.
    func read<T>(key: String, bodyChecksData: Bool = false, _ body: (OpenEntry) throws -> T?) throws -> T? {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        guard let metaStat = try POSIX.statAt(rootFD, relativeMetaPath(hash)) else {
            forget(hash: hash, miss: true)
            return nil
        }
        let metaStamp = FileStamp(metaStat)
        var entry = state.withLock { $0.index[hash] }
        if entry == nil || entry?.metaStamp != metaStamp {
            guard let meta = try readMetadataFile(hash: hash) else {
                _ = try removeIfStillBroken(hash: hash)
                forget(hash: hash, miss: true)
                return nil
            }
            entry = state.withLock { state in
                var fresh = IndexEntry(meta)
                fresh.metaStamp = metaStamp
                fresh.inherit(from: state.index[hash])
                state.insert(fresh, hash: hash)
                return fresh
            }
        }
        guard let current = entry else { return nil }
        let now = clock.now.timeIntervalSince1970
        if current.isExpired(now: now, maxAge: configuration.maxAge) {
            _ = try remove([(hash, current)])
            countMiss()
            return nil
        }
        let path = relativeDataPath(hash)
        guard let fd = try POSIX.openAt(rootFD, path) else {
            _ = try removeIfStillBroken(hash: hash)
            forget(hash: hash, miss: true)
            return nil
        }
        defer { POSIX.close(fd) }
        let stamp = FileStamp(try POSIX.fstat(fd, path))
        let file = OpenEntry(fd: fd, size: current.size, path: path, checksum: current.checksum)
        guard stamp.size == current.size, let value = try body(file) else {
            try removeCorrupt(hash: hash, checksum: current.checksum)
            return nil
        }
        if current.verified != stamp && !bodyChecksData {
            guard try checksum(fd: fd, size: current.size, path: path) == current.checksum else {
                try removeCorrupt(hash: hash, checksum: current.checksum)
                return nil
            }
        }
        touch(hash: hash, verified: stamp, checksum: current.checksum, countHit: true, now: now)
        return value
    }

    /// Records an access to `key`'s entry in memory; the access recorder writes it later.
    public func touch(key: String) {
        let hash = CacheKeyHash.fileName(for: key)
        touch(hash: hash, verified: nil, checksum: nil, countHit: false, now: clock.now.timeIntervalSince1970)
    }

    func touch(hash: String, verified: FileStamp?, checksum: String?, countHit: Bool, now: Double) {
        let flushNow = state.withLock { state -> Bool in
            guard var entry = state.index[hash] else { return false }
            if let checksum, entry.checksum != checksum { return false }
            entry.lastAccess = max(entry.lastAccess, now)
            entry.pendingAccesses += 1
            if let verified { entry.verified = verified }
            state.index[hash] = entry
            if countHit { state.hits += 1 }
            state.pendingFlush.insert(hash)
            state.pendingTouches += 1
            return state.pendingTouches >= configuration.accessFlushCount
        }
        if flushNow { flushAccesses() }
    }

    func forget(hash: String, miss: Bool) {
        state.withLock { state in
            state.remove(hash: hash)
            if miss { state.misses += 1 }
        }
    }

    /// Counts a miss without a lookup (used when the key has no entry at all).
    func countMiss() {
        state.withLock { $0.misses += 1 }
    }

    /// Removes an entry whose data disagrees with its metadata, unless another process has
    /// replaced it with a different commit meanwhile; returns whether it removed it.
    @discardableResult
    func removeCorrupt(hash: String, checksum: String) throws -> Bool {
        let removed = try commitLock.withLock { () -> Bool in
            if let meta = try readMetadataFile(hash: hash), meta.checksum != checksum { return false }
            try POSIX.unlink(metaPath(hash))
            try POSIX.unlink(dataPath(hash))
            return true
        }
        forget(hash: hash, miss: true)
        return removed
    }

    /// Lowercase hex SHA-256 of the first `size` bytes of an open file.
    func checksum(fd: Int32, size: Int64, path: String) throws -> String {
        var hasher = SHA256()
        let read = try forEachChunk(fd: fd, size: size, chunkSize: 1 << 16, path: path) { hasher.update(bufferPointer: $0) }
        return read == size ? CacheKeyHash.hex(hasher.finalize()) : ""
    }

    /// Reads the first `size` bytes of an open file in pieces of `chunkSize` and hands each to
    /// `body`; returns how many bytes there were (fewer than `size` for a short file).
    func forEachChunk(
        fd: Int32, size: Int64, chunkSize: Int, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let want = Int(min(Int64(chunkSize), size - offset))
            let n = pread(fd, buffer.baseAddress!, want, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIX.error("read", path)
            }
            if n == 0 { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
        return offset
    }
}

extension DiskCache {
    /// Copies the bytes stored for `key` to the file at `path` (created or truncated), streaming
    /// them in 1 MiB pieces, and returns how many were copied; `nil` when there is no whole,
    /// matching entry. The copy is checked against the entry's checksum as it goes; on a
    /// mismatch the entry is removed, the partial file deleted, and `nil` returned.
    public func copyData(forKey key: String, toFile path: String) throws -> Int64? {
        try read(key: key, bodyChecksData: true) { file in
            let out = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var hasher = SHA256()
            let copied: Int64
            do {
                defer { POSIX.close(out) }
                copied = try forEachChunk(fd: file.fd, size: file.size, chunkSize: 1 << 20, path: file.path) { piece in
                    hasher.update(bufferPointer: piece)
                    try POSIX.writeAll(out, piece, path)
                }
            } catch {
                _ = try? POSIX.unlink(path)
                throw error
            }
            guard copied == file.size, CacheKeyHash.hex(hasher.finalize()) == file.checksum else {
                _ = try? POSIX.unlink(path)
                return nil
            }
            return copied
        }
    }
}

extension DiskCache {
    /// Up to `count` first bytes of the data stored for `key`, for sniffing a format; `nil` when there
    /// is no data file.
    ///
    /// A peek, not a read: the checksum is not checked (the bytes are a hint, never served as the
    /// entry's body), the access is not recorded, and a torn entry is left for the next real read to
    /// find and remove. Costs an open and one read, whatever the entry's size.
    public func peek(forKey key: String, count: Int) throws -> [UInt8]? {
        try Self.validate(key: key)
        try checkOpen()
        let path = relativeDataPath(CacheKeyHash.fileName(for: key))
        guard let fd = try POSIX.openAt(rootFD, path) else { return nil }
        defer { POSIX.close(fd) }
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        let got = try bytes.withUnsafeMutableBytes { try POSIX.readFully(fd, into: $0, path) }
        return Array(bytes[0..<got])
    }
}

extension DiskCache {
    /// An entry's data file, open and checked, for sending it out piece by piece (a service's
    /// response body): the descriptor stays open until the value is released, so a later replace
    /// or removal of the entry does not change what it reads.
    public final class DataFile: Sendable {
        /// The data's length in bytes.
        public let size: Int64
        /// The SHA-256 the data was checked against (the entry's metadata checksum).
        public let checksum: String
        let fd: Int32

        init(fd: Int32, size: Int64, checksum: String) {
            self.fd = fd
            self.size = size
            self.checksum = checksum
        }

        deinit { POSIX.close(fd) }

        /// Reads up to `buffer.count` bytes at `offset` (fewer only at the end); blocking.
        public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            var done = 0
            while done < buffer.count {
                let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw POSIX.error("read", "a cache data file")
                }
                if n == 0 { break }
                done += n
            }
            return done
        }
    }

    /// The data file of the entry for `key`, checked as ``data(forKey:)`` checks it (the first read
    /// in this process, or any read after the file changed, verifies the SHA-256), and counted as
    /// an access; nil when there is no whole, matching entry. Blocking.
    public func openData(forKey key: String) throws -> DataFile? {
        try read(key: key) { file in
            let copy = dup(file.fd)
            guard copy >= 0 else { throw POSIX.error("dup", file.path) }
            return DataFile(fd: copy, size: file.size, checksum: file.checksum)
        }
    }
}
