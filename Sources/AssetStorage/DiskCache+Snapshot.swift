#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

/// The index snapshot: `<root>/index.snapshot`, written when the cache closes, read when it
/// opens. It only makes opening faster: an entry is taken from it when its metadata file still
/// has the stamp (device, inode, size, modification time) recorded there, which costs one
/// `fstatat` instead of an open, a read and a parse. Any other metadata file (written by
/// another process, or after the snapshot) is read as usual, and a snapshot that is damaged,
/// truncated or of another format is ignored.
extension DiskCache {
    static let snapshotName = "index.snapshot"
    static let snapshotMagic = Array("APIDX001".utf8)

    /// Writes the snapshot of the index (temporary file + rename). Errors are ignored: the
    /// snapshot is an accelerator, not a record.
    func writeSnapshot() {
        let entries = state.withLock { state in
            state.index.compactMap { hash, entry in entry.metaStamp.map { (hash, entry, $0) } }
        }
        var out = ByteWriter()
        out.bytes(Self.snapshotMagic)
        out.u64(UInt64(entries.count))
        for (hash, entry, stamp) in entries {
            out.string(hash)
            out.u64(stamp.device); out.u64(stamp.inode); out.i64(stamp.size); out.i64(stamp.modified)
            out.i64(entry.size)
            out.string(entry.kind.rawValue)
            out.f64(entry.created); out.f64(entry.lastAccess)
            out.f64(entry.expiration ?? .nan)
            out.string(entry.checksum)
            out.string(entry.key)
        }
        let digest = Array(SHA256.hash(data: out.buffer))
        out.bytes(digest)
        _ = try? replaceFile(root + "/" + Self.snapshotName, out.buffer)
    }

    /// The snapshot's entries by hash, each with the metadata stamp it was taken at; empty when
    /// there is no usable snapshot.
    func readSnapshot() -> [Substring: (FileStamp, IndexEntry)] {
        guard let bytes = try? POSIX.readFile(root + "/" + Self.snapshotName, limit: 1 << 30),
              bytes.count >= Self.snapshotMagic.count + 8 + 32,
              Array(bytes.prefix(Self.snapshotMagic.count)) == Self.snapshotMagic,
              Array(SHA256.hash(data: bytes[..<(bytes.count - 32)])) == Array(bytes.suffix(32))
        else { return [:] }
        var reader = ByteReader(bytes: bytes, index: Self.snapshotMagic.count, end: bytes.count - 32)
        guard let count = reader.u64(), count < 100_000_000 else { return [:] }
        var result: [Substring: (FileStamp, IndexEntry)] = [:]
        result.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let hash = reader.string(), let device = reader.u64(), let inode = reader.u64(),
                  let metaSize = reader.i64(), let modified = reader.i64(), let size = reader.i64(),
                  let kind = reader.string().flatMap(AssetKind.init(rawValue:)),
                  let created = reader.f64(), let lastAccess = reader.f64(), let expiration = reader.f64(),
                  let checksum = reader.string(), let key = reader.string()
            else { return [:] }
            let stamp = FileStamp(device: device, inode: inode, size: metaSize, modified: modified)
            let entry = IndexEntry(
                key: key, size: size, kind: kind, created: created, lastAccess: lastAccess,
                expiration: expiration.isNaN ? nil : expiration, checksum: checksum, metaStamp: stamp)
            result[Substring(hash)] = (stamp, entry)
        }
        return result
    }
}

/// Little-endian fields for the snapshot.
struct ByteWriter {
    var buffer: [UInt8] = []
    mutating func bytes(_ b: [UInt8]) { buffer.append(contentsOf: b) }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u64(UInt64(utf8.count))
        buffer.append(contentsOf: utf8)
    }
}

struct ByteReader {
    let bytes: [UInt8]
    var index: Int
    let end: Int
    mutating func u64() -> UInt64? {
        guard end - index >= 8 else { return nil }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
        index += 8
        return v
    }
    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    mutating func f64() -> Double? { u64().map { Double(bitPattern: $0) } }
    mutating func string() -> String? {
        guard let n = u64(), n <= UInt64(end - index) else { return nil }
        let s = String(decoding: bytes[index..<(index + Int(n))], as: UTF8.self)
        index += Int(n)
        return s
    }
}
