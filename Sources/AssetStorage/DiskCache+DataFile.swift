#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension DiskCache {
    /// Copies the bytes stored for `key` to the file at `path` (created or truncated), streaming
    /// them in 1 MiB pieces, and returns how many were copied; `nil` when there is no whole,
    /// matching entry. A file not yet verified in this process is checked against its checksum as
    /// it is copied; on a mismatch the entry is removed, the partial file deleted, and `nil` returned.
    public func copyData(forKey key: String, toFile path: String) throws -> Int64? {
        try read(key: key, bodyChecksData: true) { file in
            let out = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let hasher = file.checksum.map { ContentHasher($0.algorithm) }
            let copied: Int64
            do {
                defer { POSIX.close(out) }
                copied = try forEachChunk(fd: file.fd, size: file.size, chunkSize: 1 << 20, path: "an entry file") { piece in
                    hasher?.update(piece)
                    try POSIX.writeAll(out, piece, path)
                }
            } catch {
                _ = try? POSIX.unlink(path)
                throw error
            }
            guard copied == file.size, hasher == nil || hasher?.finalize() == file.checksum else {
                _ = try? POSIX.unlink(path)
                return nil
            }
            return copied
        }
    }

    /// Up to `count` first bytes of the data stored for `key`, for sniffing a format; `nil` when there
    /// is no entry file.
    ///
    /// A peek, not a read: the checksum is not checked (the bytes are a hint, never served as the
    /// entry's body), the access is not recorded, and a torn entry is left for the next real read to
    /// find and remove. Costs an open and one read (two when the index does not know the entry).
    public func peek(forKey key: String, count: Int) throws -> [UInt8]? {
        try Self.validate(key: key)
        try checkOpen()
        let digest = KeyDigest(key: key)
        guard let (fd, stamp) = try openEntry(digest) else { return nil }
        defer { POSIX.close(fd) }
        var size: Int64
        if let record = state.withLock({ $0.index.record(for: digest) }), record.inode == stamp.inode, record.fileSize == stamp.size {
            size = record.size
        } else {
            guard let footer = try Self.readFooter(fd: fd, fileSize: stamp.size) else { return nil }
            size = footer.dataSize
        }
        var bytes = [UInt8](repeating: 0, count: Int(min(Int64(max(0, count)), size)))
        let got = try bytes.withUnsafeMutableBytes { try POSIX.readFully(fd, into: $0, "an entry file") }
        return Array(bytes[0..<got])
    }
}

extension DiskCache {
    /// An entry's data, open and checked, for sending it out piece by piece (a service's response
    /// body): the descriptor stays open until the value is released, so a later replace or removal
    /// of the entry does not change what it reads. The data is the first ``size`` bytes of the
    /// entry file; reads past them end there.
    public final class DataFile: Sendable {
        /// The data's length in bytes.
        public let size: Int64
        /// The checksum the data was checked against (the entry's metadata checksum): the identity
        /// of these bytes.
        public let checksum: String
        let fd: Int32

        init(fd: Int32, size: Int64, checksum: String) {
            self.fd = fd
            self.size = size
            self.checksum = checksum
        }

        deinit { POSIX.close(fd) }

        /// Reads up to `buffer.count` bytes of the data at `offset` (fewer only at its end); blocking.
        public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            guard offset < size, buffer.count > 0 else { return 0 }
            let want = Int(min(Int64(buffer.count), size - offset))
            return try POSIX.preadFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: offset, "a cache data file")
        }
    }

    /// The data of the entry for `key`, checked as ``data(forKey:)`` checks it (the first read in
    /// this process, or any read after the file changed, verifies the checksum), and counted as
    /// an access; nil when there is no whole, matching entry. Blocking.
    public func openData(forKey key: String) throws -> DataFile? {
        try read(key: key) { file in
            guard let footer = try Self.readFooter(fd: file.fd, fileSize: file.fileSize) else { return nil }
            let copy = dup(file.fd)
            guard copy >= 0 else { throw POSIX.error("dup", "an entry file") }
            return DataFile(fd: copy, size: file.size, checksum: footer.checksum.string)
        }
    }
}
