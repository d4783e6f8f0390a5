#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

extension DiskCache {
    /// A streamed write of one entry: ``append(_:)-(UnsafeRawBufferPointer)`` the body, then
    /// ``commit(_:expectedSize:)`` or ``discard()``. The bytes go to a temporary file and are
    /// hashed as they pass; nothing is visible to readers before the commit. Dropping a writer
    /// without committing discards it.
    public final class Writer: @unchecked Sendable {  // `progress` is guarded by `lock`
        private struct Progress {
            var fd: Int32
            var size: Int64 = 0
            var hasher = SHA256()
            var finished = false
        }

        /// The key the entry is written for.
        public let key: String
        private let cache: DiskCache
        private let path: String
        private let limit: Int64
        private let lock = NSLock()
        private var progressState: Progress

        init(cache: DiskCache, key: String, path: String, fd: Int32, limit: Int64) {
            self.cache = cache
            self.key = key
            self.path = path
            self.limit = limit
            progressState = Progress(fd: fd)
        }

        deinit { discard() }

        /// Bytes appended so far.
        public var bytesWritten: Int64 { withProgress { $0.size } }

        /// Appends bytes. Throws ``StorageError/Code/tooLarge`` (and discards the write) when the
        /// body passes the writer's limit.
        public func append(_ bytes: UnsafeRawBufferPointer) throws {
            try withProgress { p in
                guard !p.finished else { throw StorageError(.invalidArgument, "the write of \(key) has ended") }
                guard p.size + Int64(bytes.count) <= limit else {
                    finish(&p, remove: true)
                    throw StorageError(.tooLarge, "\(key) is larger than the \(limit) bytes allowed")
                }
                do {
                    try POSIX.writeAll(p.fd, bytes, path)
                } catch {
                    finish(&p, remove: true)
                    throw error
                }
                p.hasher.update(bufferPointer: bytes)
                p.size += Int64(bytes.count)
            }
        }

        /// Appends bytes; see ``append(_:)-(UnsafeRawBufferPointer)``.
        public func append(_ bytes: some ContiguousBytes) throws {
            try bytes.withUnsafeBytes { try append($0) }
        }

        /// Makes the written bytes the entry for ``key``, replacing any entry, and returns its
        /// metadata. `expectedSize`, when given, must equal the bytes written (a short body is
        /// not committed).
        @discardableResult
        public func commit(_ info: EntryInfo, expectedSize: Int64? = nil) throws -> CacheMetadata {
            let (size, checksum, stamp) = try withProgress { p -> (Int64, String, FileStamp?) in
                guard !p.finished else { throw StorageError(.invalidArgument, "the write of \(key) has ended") }
                if let expectedSize, expectedSize != p.size {
                    finish(&p, remove: true)
                    throw StorageError(.corrupt, "\(key): \(p.size) bytes written, \(expectedSize) expected")
                }
                if cache.configuration.durability == .powerLoss {
                    do { try POSIX.fsync(p.fd, path) } catch {
                        finish(&p, remove: true)
                        throw error
                    }
                }
                let digest = CacheKeyHash.hex(p.hasher.finalize())
                let stamp = (try? POSIX.fstat(p.fd, path)).map(FileStamp.init)
                finish(&p, remove: false)
                return (p.size, digest, stamp)
            }
            let now = cache.clock.now
            let metadata = CacheMetadata(
                key: key, originalUrlString: info.originalUrlString, createdDate: now, eTag: info.eTag,
                lastModified: info.lastModified, accessCount: 0, lastAccessTime: now, size: size,
                contentType: info.contentType, kind: info.kind, checksum: checksum,
                expirationDate: info.expirationDate, http: info.http)
            do {
                try cache.commit(temporaryData: path, metadata: metadata, dataStamp: stamp)
            } catch {
                _ = try? POSIX.unlink(path)
                throw error
            }
            return metadata
        }

        /// Abandons the write and removes its temporary file. Does nothing after a commit.
        public func discard() {
            withProgress { finish(&$0, remove: true) }
        }

        private func withProgress<T>(_ body: (inout Progress) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&progressState)
        }

        private func finish(_ p: inout Progress, remove: Bool) {
            guard !p.finished else { return }
            p.finished = true
            POSIX.close(p.fd)
            if remove { _ = try? POSIX.unlink(path) }
        }
    }
}
