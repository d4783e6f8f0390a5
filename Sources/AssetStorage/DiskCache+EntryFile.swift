#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the parts of an entry file: the footer (one `pread` of its last 96 bytes), the metadata
/// JSON committed with the data, and the `.meta.json` beside it.
extension DiskCache {
    /// Opens the entry file of `digest` for reading; nil when there is none.
    func openEntry(_ digest: KeyDigest) throws -> (fd: Int32, stamp: FileStamp)? {
        let dir = rootFD
        guard let fd = try digest.withRelativePath(".entry", { try POSIX.openAt(dir, $0) }) else { return nil }
        do {
            return (fd, FileStamp(try POSIX.fstat(fd, "an entry file")))
        } catch {
            POSIX.close(fd)
            throw error
        }
    }

    /// The footer of an open entry file of `fileSize` bytes; nil when the file does not end in a
    /// whole footer that agrees with its length.
    static func readFooter(fd: Int32, fileSize: Int64) throws -> EntryFooter? {
        guard fileSize >= Int64(EntryFooter.size) else { return nil }
        return try withUnsafeTemporaryAllocation(byteCount: EntryFooter.size, alignment: 8) { buffer in
            let got = try POSIX.preadFully(fd, into: buffer, at: fileSize - Int64(EntryFooter.size), "an entry footer")
            guard got == EntryFooter.size else { return nil }
            return EntryFooter(UnsafeRawBufferPointer(buffer), fileSize: fileSize)
        }
    }

    /// The metadata committed with the data; nil when it is not whole or not the footer's.
    static func readEmbeddedMetadata(fd: Int32, footer: EntryFooter) throws -> CacheMetadata? {
        guard footer.metadataLength <= CacheMetadata.maxFileSize else { return nil }
        var bytes = [UInt8](repeating: 0, count: footer.metadataLength)
        let got = try bytes.withUnsafeMutableBytes { try POSIX.preadFully(fd, into: $0, at: footer.dataSize, "entry metadata") }
        guard got == footer.metadataLength, FastHash.of(bytes) == footer.metadataHash,
              let meta = CacheMetadata(jsonBytes: bytes), meta.size == footer.dataSize,
              meta.checksum == footer.checksum.string
        else { return nil }
        return meta
    }

    /// The entry's `.meta.json` when it belongs to the commit whose checksum is `checksum` and to
    /// the key whose digest is `digest`; nil otherwise (missing, unreadable, or of an older commit).
    func readSidecar(_ digest: KeyDigest, checksum: String) -> CacheMetadata? {
        let dir = rootFD
        guard let bytes = try? digest.withRelativePath(".meta.json", {
                  try POSIX.readSmallFile(dir, $0, limit: CacheMetadata.maxFileSize)
              }) ?? nil,
              let meta = CacheMetadata(jsonBytes: bytes), meta.checksum == checksum,
              KeyDigest(key: meta.key) == digest
        else { return nil }
        return meta
    }

    /// The entry's metadata as it stands: its `.meta.json` when that belongs to this commit, else
    /// what was committed with the data. nil when the entry file is not whole or not `digest`'s (when
    /// the caller knows the key, comparing it spares hashing the stored one).
    func currentMetadata(_ digest: KeyDigest, fd: Int32, footer: EntryFooter, key: String? = nil) throws -> CacheMetadata? {
        guard let embedded = try Self.readEmbeddedMetadata(fd: fd, footer: footer),
              key.map({ $0 == embedded.key }) ?? (KeyDigest(key: embedded.key) == digest)
        else { return nil }
        return readSidecar(digest, checksum: embedded.checksum) ?? embedded
    }

    /// The checksum of the first `size` bytes of an open file, with `algorithm`; nil when the
    /// file is shorter.
    func checksum(fd: Int32, size: Int64, algorithm: ContentChecksum.Algorithm) throws -> ContentChecksum? {
        let hasher = ContentHasher(algorithm)
        let read = try forEachChunk(fd: fd, size: size, chunkSize: 1 << 16, path: "an entry file") { hasher.update($0) }
        return read == size ? hasher.finalize() : nil
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
