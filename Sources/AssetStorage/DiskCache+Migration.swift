#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two-file layout (`<hash>.data` + `<hash>.meta.json`, before entry files) opened by this one:
/// each old entry becomes an entry file in place, with nothing copied and nothing lost.
///
/// Under the commit lock, the metadata JSON and a footer are appended to the `.data` file (its
/// checksum stays the SHA-256 the old metadata has, so the entry's checksum string does not change),
/// then the file is renamed to `<hash>.entry`. The `.meta.json` stays where it is: it is now the
/// entry's record of what changed after the store (access counts, revalidations). A crash between
/// the append and the rename leaves a `.data` file that ends in a footer, which the next open finishes
/// renaming; an old entry whose data disagrees with its metadata is removed, as it always was.
extension DiskCache {
    enum Migration {
        case migrated(IndexRecord)
        case corrupt
        case orphan
        /// Another process migrated or removed it meanwhile.
        case skipped
    }

    func migrateLegacyEntry(_ digest: KeyDigest) throws -> Migration {
        try commitLock.withLock {
            let dataPath = path(digest, ".data")
            let metaPath = path(digest, ".meta.json")
            guard let fd = try POSIX.openIfExists(dataPath, O_RDWR) else { return .skipped }
            defer { POSIX.close(fd) }
            let dir = rootFD
            let metaBytes = try digest.withRelativePath(".meta.json") { try POSIX.readSmallFile(dir, $0, limit: CacheMetadata.maxFileSize) }
            guard let metaBytes else {
                try POSIX.unlink(dataPath)
                return .orphan
            }
            guard let meta = CacheMetadata(jsonBytes: metaBytes), KeyDigest(key: meta.key) == digest,
                  let checksum = ContentChecksum(string: meta.checksum)
            else { return try removeLegacy(dataPath, metaPath) }
            let json = meta.jsonBytes
            let footer = EntryFooter(
                dataSize: meta.size, metadataLength: json.count, kind: meta.kind, checksum: checksum,
                created: meta.createdDate.timeIntervalSince1970, expiration: meta.expirationDate?.timeIntervalSince1970,
                metadataHash: FastHash.of(json))
            let st = try POSIX.fstat(fd, dataPath)
            if Int64(st.st_size) == meta.size {
                try (json + footer.bytes).withUnsafeBytes { try POSIX.pwriteAll(fd, $0, at: meta.size, dataPath) }
            } else {
                let finished = Int64(st.st_size) == footer.fileSize ? try Self.readFooter(fd: fd, fileSize: footer.fileSize) : nil
                if finished == nil { return try removeLegacy(dataPath, metaPath) }
            }
            let entryPath = path(digest, ".entry")
            if try POSIX.stat(entryPath) != nil {
                // An entry file written since: it is the newer one.
                try POSIX.unlink(dataPath)
                return .skipped
            }
            try POSIX.rename(dataPath, entryPath)
            let inode = UInt64(try POSIX.fstat(fd, entryPath).st_ino)
            return .migrated(IndexRecord(digest: digest, footer: footer, inode: inode, lastAccess: meta.lastAccessTime.timeIntervalSince1970))
        }
    }

    private func removeLegacy(_ dataPath: String, _ metaPath: String) throws -> Migration {
        try POSIX.unlink(metaPath)
        try POSIX.unlink(dataPath)
        return .corrupt
    }
}
