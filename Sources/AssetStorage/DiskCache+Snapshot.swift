#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CXXHash

/// The index snapshot: `<root>/index.snapshot`, written when the cache closes, read when it opens.
/// It only makes opening faster: it holds each record with the inode of the entry file it describes,
/// and opening takes a record when the shard's listing shows that file still under that name (no
/// open, no read). Any other file is read as usual; a snapshot that is damaged, truncated or of
/// another format is ignored.
///
/// Format: `APIDX002`, a u64 count, `count` records of 96 bytes, and the XXH3-64 of all that before
/// it. Read in pieces of 4 MiB into the index directly, so opening never holds the file whole.
extension DiskCache {
    static let snapshotName = "index.snapshot"
    static let snapshotMagic: [UInt8] = Array("APIDX002".utf8)
    static let snapshotRecordSize = 96

    /// Writes the snapshot of the index (temporary file + rename). Errors are ignored: the snapshot
    /// is an accelerator, not a record.
    func writeSnapshot() {
        let index = state.withLock { $0.index }
        let temp = temporaryPath()
        guard let fd = try? POSIX.open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644) else { return }
        var ok = true
        defer {
            POSIX.close(fd)
            if !ok { _ = try? POSIX.unlink(temp) }
        }
        let hasher = XXH3_createState()
        defer { XXH3_freeState(hasher) }
        XXH3_64bits_reset(hasher)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 22)
        func emit(final: Bool) {
            guard ok, final || out.count >= 1 << 22 else { return }
            out.withUnsafeBytes { raw in
                XXH3_64bits_update(hasher, raw.baseAddress, raw.count)
                do { try POSIX.writeAll(fd, raw, temp) } catch { ok = false }
            }
            out.removeAll(keepingCapacity: true)
        }
        out.append(contentsOf: Self.snapshotMagic)
        append(UInt64(index.count), to: &out)
        index.forEach { record in
            Self.encode(record, into: &out)
            emit(final: false)
        }
        emit(final: true)
        var check = XXH3_64bits_digest(hasher).littleEndian
        withUnsafeBytes(of: &check) { raw in
            do { try POSIX.writeAll(fd, raw, temp) } catch { ok = false }
        }
        if ok, configuration.durability == .powerLoss { ok = (try? POSIX.fsync(fd, temp)) != nil }
        if ok { ok = (try? POSIX.rename(temp, root + "/" + Self.snapshotName)) != nil }
    }

    /// The snapshot's records as an index; empty when there is no usable snapshot.
    func readSnapshot() -> CacheIndex {
        let path = root + "/" + Self.snapshotName
        guard let fd = try? POSIX.openIfExists(path) else { return CacheIndex() }
        defer { POSIX.close(fd) }
        guard let st = try? POSIX.fstat(fd, path) else { return CacheIndex() }
        let fileSize = Int64(st.st_size)
        let header = Self.snapshotMagic.count + 8
        guard fileSize >= Int64(header + 8), (fileSize - Int64(header) - 8) % Int64(Self.snapshotRecordSize) == 0 else {
            return CacheIndex()
        }
        let count = Int((fileSize - Int64(header) - 8) / Int64(Self.snapshotRecordSize))
        let hasher = XXH3_createState()
        defer { XXH3_freeState(hasher) }
        XXH3_64bits_reset(hasher)
        var index = CacheIndex()
        index.reserveCapacity(count)
        let chunkRecords = (1 << 22) / Self.snapshotRecordSize
        var buffer = [UInt8](repeating: 0, count: max(header, chunkRecords * Self.snapshotRecordSize))
        var offset: Int64 = 0
        func read(_ n: Int) -> Bool {
            let got = (try? buffer.withUnsafeMutableBytes {
                try POSIX.preadFully(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<n]), at: offset, path)
            }) ?? -1
            guard got == n else { return false }
            _ = buffer.withUnsafeBytes { XXH3_64bits_update(hasher, $0.baseAddress, n) }
            offset += Int64(n)
            return true
        }
        guard read(header), Array(buffer[0..<Self.snapshotMagic.count]) == Self.snapshotMagic,
              buffer.withUnsafeBytes({ UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }) == UInt64(count)
        else { return CacheIndex() }
        var left = count
        while left > 0 {
            let n = min(left, chunkRecords)
            guard read(n * Self.snapshotRecordSize) else { return CacheIndex() }
            let valid = buffer.withUnsafeBytes { raw -> Bool in
                for i in 0..<n {
                    guard let record = Self.decode(UnsafeRawBufferPointer(rebasing: raw[(i * Self.snapshotRecordSize)...])) else { return false }
                    index.insert(record)
                }
                return true
            }
            guard valid else { return CacheIndex() }
            left -= n
        }
        var check: UInt64 = 0
        let got = (try? withUnsafeMutableBytes(of: &check) { try POSIX.preadFully(fd, into: $0, at: offset, path) }) ?? 0
        guard got == 8, UInt64(littleEndian: check) == XXH3_64bits_digest(hasher) else { return CacheIndex() }
        return index
    }

    private func append(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// digest 32, identity 16, size, created, last access, expiration, inode (8 each), metadata
    /// length u32, kind u8, 3 zero bytes.
    static func encode(_ r: IndexRecord, into out: inout [UInt8]) {
        let words: [UInt64] = [
            r.digest.w0, r.digest.w1, r.digest.w2, r.digest.w3, r.identity.high, r.identity.low,
            UInt64(bitPattern: r.size), r.created.bitPattern, r.lastAccess.bitPattern, r.expirationValue.bitPattern, r.inode,
        ]
        for w in words { withUnsafeBytes(of: w.littleEndian) { out.append(contentsOf: $0) } }
        withUnsafeBytes(of: r.metadataLength.littleEndian) { out.append(contentsOf: $0) }
        out.append(UInt8(EntryFooter.kinds.firstIndex(of: r.kind) ?? 3))
        out.append(contentsOf: [0, 0, 0])
    }

    static func decode(_ raw: UnsafeRawBufferPointer) -> IndexRecord? {
        func w(_ i: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)) }
        let kindCode = Int(raw[92])
        let size = Int64(bitPattern: w(6))
        guard kindCode < EntryFooter.kinds.count, size >= 0 else { return nil }
        let expiration = Double(bitPattern: w(9))
        return IndexRecord(
            digest: KeyDigest(w0: w(0), w1: w(1), w2: w(2), w3: w(3)), identity: ContentIdentity(high: w(4), low: w(5)),
            size: size, created: Double(bitPattern: w(7)), lastAccess: Double(bitPattern: w(8)),
            expiration: expiration.isNaN ? nil : expiration, inode: w(10),
            metadataLength: Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 88, as: UInt32.self))),
            kind: EntryFooter.kinds[kindCode])
    }
}
