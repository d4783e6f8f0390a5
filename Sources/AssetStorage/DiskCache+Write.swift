#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
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

    /// Stores `bytes` for `key`, replacing any entry, and returns the committed metadata.
    @discardableResult
    public func store(_ bytes: some ContiguousBytes, forKey key: String, info: EntryInfo = EntryInfo()) throws -> CacheMetadata {
        let writer = try makeWriter(forKey: key, maxBytes: configuration.maxBytes)
        do {
            try bytes.withUnsafeBytes { try writer.append($0) }
            return try writer.commit(info)
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Starts a streamed write of an entry: append the body as it arrives, then commit (or
    /// discard). Nothing is visible to readers until the commit; a writer that is dropped
    /// without a commit removes its temporary file. `maxBytes` bounds the body (the cache's
    /// own byte limit bounds it too).
    public func makeWriter(forKey key: String, maxBytes: Int64? = nil) throws -> Writer {
        try Self.validate(key: key)
        try checkOpen()
        let limit = min(maxBytes ?? configuration.maxBytes, configuration.maxBytes)
        let path = temporaryPath()
        let fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        return Writer(cache: self, key: key, path: path, fd: fd, limit: limit)
    }

    /// Commits a finished temporary data file as the entry for `hash`. Under the commit lock the
    /// old metadata goes first (the entry is then uncommitted), the data is renamed into place,
    /// and the new metadata is written straight to its name: a crash at any point leaves either
    /// data without metadata (an orphan, cleaned at open) or a torn metadata file, which never
    /// parses (the JSON's closing brace is its last byte) and so is never served.
    func commit(temporaryData: String, metadata: CacheMetadata, dataStamp: FileStamp?) throws {
        let hash = CacheKeyHash.fileName(for: metadata.key)
        let metaBytes = metadata.jsonBytes
        var metaStamp: FileStamp?
        try commitLock.withLock {
            try POSIX.unlink(metaPath(hash))
            do {
                try POSIX.rename(temporaryData, dataPath(hash))
            } catch let error as StorageError where error.errno == ENOENT {
                // The shard folder does not exist yet.
                try POSIX.mkdirs(shardPath(hash))
                try POSIX.rename(temporaryData, dataPath(hash))
            }
            metaStamp = try writeFile(metaPath(hash), metaBytes)
        }
        var entry = IndexEntry(metadata)
        entry.verified = dataStamp
        entry.metaStamp = metaStamp
        state.withLock { $0.insert(entry, hash: hash) }
        try enforceLimits()
    }

    /// Writes a small file whole (the metadata), fsynced when the durability asks for it;
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

    /// Replaces the file at `path` whole: written to a temporary file, then renamed over it, so
    /// a reader sees the old bytes or the new, never a mix. Returns the new file's stamp.
    @discardableResult
    func replaceFile(_ path: String, _ bytes: [UInt8]) throws -> FileStamp {
        let temp = temporaryPath()
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
    /// keeping its data. The size, checksum and key cannot change this way. Returns the new
    /// metadata, or `nil` when there is no entry.
    @discardableResult
    public func updateMetadata(forKey key: String, _ change: (inout CacheMetadata) -> Void) throws -> CacheMetadata? {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        var metaStamp: FileStamp?
        let updated: CacheMetadata? = try commitLock.withLock {
            guard var meta = try readMetadataFile(hash: hash) else { return nil }
            let (size, checksum) = (meta.size, meta.checksum)
            change(&meta)
            meta.key = key
            meta.size = size
            meta.checksum = checksum
            metaStamp = try replaceFile(metaPath(hash), meta.jsonBytes)
            return meta
        }
        if let updated {
            state.withLock { state in
                var entry = IndexEntry(updated)
                entry.metaStamp = metaStamp
                entry.inherit(from: state.index[hash])
                state.insert(entry, hash: hash)
            }
        }
        return updated
    }
}
