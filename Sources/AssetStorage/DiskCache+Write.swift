#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// What a writer knows of an entry besides its bytes; the cache fills in the size, the
    /// checksum and the dates.
    public struct EntryInfo: Sendable {
        /// The kind of the asset. Default ``AssetKind/raw``.
        public var kind: AssetKind
        /// The URL the bytes came from, if any.
        public var originalUrlString: String?
        /// The `Content-Type` of the bytes, if known.
        public var contentType: String?
        /// The response's `ETag`, as sent.
        public var eTag: String?
        /// The response's `Last-Modified`, as sent.
        public var lastModified: String?
        /// When the storage layer may drop the entry regardless of use; `nil` (the default) for only the
        /// cache's own age limit.
        public var expirationDate: Date?
        /// The HTTP exchange the bytes came from, for freshness and revalidation.
        public var http: CacheMetadata.HTTPInfo?

        /// Creates the information for a write; every field defaults to `nil`, the kind to ``AssetKind/raw``.
        public init(
            kind: AssetKind = .raw, originalUrlString: String? = nil, contentType: String? = nil,
            eTag: String? = nil, lastModified: String? = nil, expirationDate: Date? = nil,
            http: CacheMetadata.HTTPInfo? = nil
        ) {
            self.kind = kind
            self.originalUrlString = originalUrlString
            self.contentType = contentType
            self.eTag = eTag
            self.lastModified = lastModified
            self.expirationDate = expirationDate
            self.http = http
        }
    }

    /// Stores `bytes` for `key`, replacing any entry, and returns the committed metadata: one file
    /// written (the bytes, the metadata and the footer in one `writev`) and renamed into place.
    @discardableResult
    public func store(_ bytes: some ContiguousBytes, forKey key: String, info: EntryInfo = EntryInfo()) throws -> CacheMetadata {
        let writer = try makeWriter(forKey: key, maxBytes: configuration.maxBytes)
        return try bytes.withUnsafeBytes { try writer.commit(info, finalPiece: $0) }
    }

    /// Starts a streamed write of an entry: append the body as it arrives, then commit (or
    /// discard). Nothing is visible to readers until the commit; a writer that is dropped
    /// without a commit removes its temporary file. `maxBytes` bounds the body (the cache's
    /// own byte limit bounds it too).
    ///
    /// A failure of the disk (full, read-only, the directory removed, no descriptors left) throws
    /// ``StorageError/Code/io`` and is counted in ``Statistics/failedStores``; once the cause is
    /// gone the next write works (a removed directory is made again).
    public func makeWriter(forKey key: String, maxBytes: Int64? = nil) throws -> Writer {
        try Self.validate(key: key)
        try checkOpen()
        let limit = min(maxBytes ?? configuration.maxBytes, configuration.maxBytes)
        let digest = KeyDigest(key: key)
        var path = temporaryPath(beside: digest)
        let fd: Int32
        do {
            do {
                fd = try POSIX.open(path, O_RDWR | O_CREAT | O_EXCL, 0o644)
            } catch let error as StorageError where error.errno == ENOENT {
                // The shard folder does not exist yet, or someone removed the directory.
                try restoreFolders(shardOf: digest)
                path = temporaryPath(beside: digest)
                fd = try POSIX.open(path, O_RDWR | O_CREAT | O_EXCL, 0o644)
            }
        } catch {
            countFailedStore()
            throw error
        }
        return Writer(cache: self, key: key, digest: digest, path: path, fd: fd, limit: limit)
    }

    func countFailedStore() {
        state.withLock { $0.failedStores += 1 }
    }

    /// Makes a finished temporary entry file the entry for its key: one rename (atomic, so no lock:
    /// a reader or another process sees the old entry or the new one). A replaced entry's
    /// `.meta.json` (of the old commit) is removed.
    func commit(temporary: String, record: IndexRecord) throws {
        let final = path(record.digest, ".entry")
        do {
            try POSIX.rename(temporary, final)
        } catch let error as StorageError where error.errno == ENOENT {
            // The shard folder (or the whole directory) is gone: make it again, once.
            try restoreFolders(shardOf: record.digest)
            try POSIX.rename(temporary, final)
        }
        let replaced = state.withLock { $0.insert(record) }
        if replaced != nil { _ = try? POSIX.unlink(path(record.digest, ".meta.json")) }
        // The entry is committed: an eviction the disk refuses now is tried again after the next store.
        try? enforceLimits()
    }

    /// Writes a small file whole (a `.meta.json`), fsynced when the durability asks for it;
    /// returns its stamp.
    @discardableResult
    func writeFile(_ path: String, _ bytes: [UInt8]) throws -> FileStamp {
        let fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { POSIX.close(fd) }
        do {
            try bytes.withUnsafeBytes { try POSIX.writeAll(fd, $0, path) }
            if configuration.durability == .powerLoss { try POSIX.fsync(fd, path) }
            return FileStamp(try POSIX.fstat(fd, path))
        } catch {
            _ = try? POSIX.unlink(path)
            throw error
        }
    }

    /// Replaces the file at `path` (in the shard folder of `digest`) whole: written to a temporary
    /// file beside it, then renamed over it, so a reader sees the old bytes or the new, never a mix.
    /// Returns the new file's stamp.
    @discardableResult
    func replaceFile(_ path: String, beside digest: KeyDigest, _ bytes: [UInt8]) throws -> FileStamp {
        let temp = temporaryPath(beside: digest)
        do {
            let stamp = try writeFile(temp, bytes)
            try POSIX.rename(temp, path)
            return stamp
        } catch {
            _ = try? POSIX.unlink(temp)
            throw error
        }
    }

    /// Rewrites the metadata of the entry for `key` (for example after a `304 Not Modified`),
    /// keeping its data: the new metadata goes to the entry's `.meta.json`. The size, checksum and
    /// key cannot change this way. Returns the new metadata, or `nil` when there is no entry.
    @discardableResult
    public func updateMetadata(forKey key: String, _ change: (inout CacheMetadata) -> Void) throws -> CacheMetadata? {
        try Self.validate(key: key)
        try checkOpen()
        let digest = KeyDigest(key: key)
        return try commitLock.withLock { () -> CacheMetadata? in
            guard let (fd, stamp) = try openEntry(digest) else { return nil }
            defer { POSIX.close(fd) }
            guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size),
                  var meta = try currentMetadata(digest, fd: fd, footer: footer)
            else { return nil }
            let (size, checksum) = (meta.size, meta.checksum)
            change(&meta)
            meta.key = key
            meta.size = size
            meta.checksum = checksum
            try replaceFile(path(digest, ".meta.json"), beside: digest, meta.jsonBytes)
            state.withLock { state in
                var record = IndexRecord(digest: digest, footer: footer, inode: stamp.inode, lastAccess: meta.lastAccessTime.timeIntervalSince1970)
                record.expiration = meta.expirationDate?.timeIntervalSince1970
                record.inherit(from: state.index.record(for: digest))
                state.insert(record)
            }
            return meta
        }
    }
}
