#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// A streamed write of one entry: ``append(_:)-(UnsafeRawBufferPointer)`` the body, then ``commit(_:expectedSize:finalPiece:)``
    /// or ``discard()``. The bytes go to a temporary file and are hashed (XXH3-128) as they pass; the
    /// commit appends the metadata and the footer and renames the file into place. Nothing is visible
    /// to readers before the commit. Dropping a writer without committing discards it.
    public final class Writer: @unchecked Sendable {  // `progressState` is guarded by `lock`
        private struct Progress {
            var fd: Int32
            var size: Int64 = 0
            let hasher = ContentHasher(.xxh128)
            var finished = false
            /// The disk refused a write or the commit: what was written can still be read back.
            var failed = false
        }

        /// The key the entry is written for.
        public let key: String
        private let digest: KeyDigest
        private let cache: DiskCache
        private let path: String
        private let limit: Int64
        private let lock = NSLock()
        private var progressState: Progress

        init(cache: DiskCache, key: String, digest: KeyDigest, path: String, fd: Int32, limit: Int64) {
            self.cache = cache
            self.key = key
            self.digest = digest
            self.path = path
            self.limit = limit
            progressState = Progress(fd: fd)
        }

        deinit { discard() }

        /// Bytes appended so far.
        public var bytesWritten: Int64 { withProgress { $0.size } }

        /// Appends bytes. Throws ``StorageError/Code/tooLarge`` (and discards the write) when the
        /// body passes the writer's limit, ``StorageError/Code/io`` when the disk fails: then the bytes
        /// appended before stay readable through ``writtenBytes()`` until the writer is discarded.
        public func append(_ bytes: UnsafeRawBufferPointer) throws {
            try withProgress { p in
                try checkWritable(p)
                try checkLimit(&p, adding: bytes.count)
                do {
                    try POSIX.writeAll(p.fd, bytes, path)
                } catch {
                    fail(&p)
                    throw error
                }
                p.hasher.update(bytes)
                p.size += Int64(bytes.count)
            }
        }

        /// Appends bytes; see ``append(_:)-(UnsafeRawBufferPointer)``.
        public func append(_ bytes: some ContiguousBytes) throws {
            try bytes.withUnsafeBytes { try append($0) }
        }

        /// Appends several pieces in order with one `writev`; see ``append(_:)-(UnsafeRawBufferPointer)``.
        public func append(contentsOf pieces: [UnsafeRawBufferPointer]) throws {
            try withProgress { p in
                try checkWritable(p)
                let count = pieces.reduce(0) { $0 + $1.count }
                try checkLimit(&p, adding: count)
                do {
                    try POSIX.writevAll(p.fd, pieces, path)
                } catch {
                    fail(&p)
                    throw error
                }
                for piece in pieces { p.hasher.update(piece) }
                p.size += Int64(count)
            }
        }

        /// Makes the written bytes, and `finalPiece` after them, the entry for ``key``, replacing any
        /// entry, and returns its metadata. `expectedSize`, when given, must equal the whole body (a
        /// short body is not committed). The last piece, the metadata and the footer go out in one
        /// `writev`: a body that arrives whole costs one open, one write, an `fstat`, a close and a rename.
        @discardableResult
        public func commit(_ info: EntryInfo, expectedSize: Int64? = nil, finalPiece: UnsafeRawBufferPointer? = nil) throws -> CacheMetadata {
            try commit(info, expectedSize: expectedSize, finalPieces: finalPiece.map { [$0] } ?? [])
        }

        /// ``commit(_:expectedSize:finalPiece:)`` with the last bytes in several pieces (one `writev`
        /// still: the pieces, the metadata and the footer).
        @discardableResult
        public func commit(_ info: EntryInfo, expectedSize: Int64? = nil, finalPieces: [UnsafeRawBufferPointer]) throws -> CacheMetadata {
            try withProgress { p -> CacheMetadata in
                try checkWritable(p)
                let pieceCount = finalPieces.reduce(0) { $0 + $1.count }
                try checkLimit(&p, adding: pieceCount)
                let size = p.size + Int64(pieceCount)
                if let expectedSize, expectedSize != size {
                    finish(&p, remove: true)
                    throw StorageError(.corrupt, "\(key): \(size) bytes written, \(expectedSize) expected")
                }
                for piece in finalPieces { p.hasher.update(piece) }
                let checksum = p.hasher.finalize()
                let now = cache.clock.now
                let metadata = CacheMetadata(
                    key: key, originalUrlString: info.originalUrlString, createdDate: now, eTag: info.eTag,
                    lastModified: info.lastModified, accessCount: 0, lastAccessTime: now, size: size,
                    contentType: info.contentType, kind: info.kind, checksum: checksum.string,
                    expirationDate: info.expirationDate, http: info.http)
                let json = metadata.jsonBytes
                let footer = EntryFooter(
                    dataSize: size, metadataLength: json.count, kind: info.kind, checksum: checksum,
                    created: now.timeIntervalSince1970, expiration: info.expirationDate?.timeIntervalSince1970,
                    metadataHash: FastHash.of(json))
                let stamp: FileStamp
                do {
                    try json.withUnsafeBytes { jsonBytes in
                        try footer.bytes.withUnsafeBytes { footerBytes in
                            try POSIX.writevAll(p.fd, finalPieces + [jsonBytes, footerBytes], path)
                        }
                    }
                    if cache.configuration.durability == .powerLoss { try POSIX.fsync(p.fd, path) }
                    stamp = FileStamp(try POSIX.fstat(p.fd, path))
                } catch {
                    fail(&p)
                    throw error
                }
                var record = IndexRecord(digest: digest, footer: footer, inode: stamp.inode)
                record.markVerified(stamp)
                do {
                    try cache.commit(temporary: path, record: record)
                } catch {
                    fail(&p)
                    throw error
                }
                p.finished = true
                POSIX.close(p.fd)
                return metadata
            }
        }

        /// The bytes appended before the disk refused a write or the commit (read back from the
        /// temporary file, which is still open): a loader answers with them instead of failing.
        public func writtenBytes() throws -> Data {
            try withProgress { p in
                guard !p.finished else { throw StorageError(.invalidArgument, "the write of \(key) has ended") }
                var data = Data(count: Int(p.size))
                let got = try data.withUnsafeMutableBytes { try POSIX.preadFully(p.fd, into: $0, at: 0, path) }
                guard got == Int(p.size) else { throw StorageError(.io, "\(path): \(got) of \(p.size) bytes read back") }
                return data
            }
        }

        /// Abandons the write and removes its temporary file. Does nothing after a commit.
        public func discard() {
            withProgress { finish(&$0, remove: true) }
        }

        private func checkWritable(_ p: Progress) throws {
            guard !p.finished else { throw StorageError(.invalidArgument, "the write of \(key) has ended") }
            guard !p.failed else { throw StorageError(.invalidArgument, "the write of \(key) failed; discard it") }
        }

        private func checkLimit(_ p: inout Progress, adding count: Int) throws {
            guard p.size + Int64(count) <= limit else {
                finish(&p, remove: true)
                throw StorageError(.tooLarge, "\(key) is larger than the \(limit) bytes allowed")
            }
        }

        private func withProgress<T>(_ body: (inout Progress) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&progressState)
        }

        /// Marks a write the disk refused (counted as a failed store); the file stays open for
        /// ``writtenBytes()`` until ``discard()``.
        private func fail(_ p: inout Progress) {
            p.failed = true
            cache.countFailedStore()
        }

        private func finish(_ p: inout Progress, remove: Bool) {
            guard !p.finished else { return }
            p.finished = true
            POSIX.close(p.fd)
            if remove { _ = try? POSIX.unlink(path) }
        }
    }
}
