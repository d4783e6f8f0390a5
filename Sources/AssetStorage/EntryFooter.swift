/// The fixed 96 bytes at the end of an entry file, after the data and the metadata JSON:
///
/// ```
///  0  data size          u64      the data is bytes [0, size) of the file
///  8  metadata length    u32      the JSON is the next `length` bytes
/// 12  kind               u8       0 image, 1 lottie, 2 video, 3 raw
/// 13  algorithm          u8       1 XXH3-128, 2 SHA-256 (an entry migrated from the two-file layout)
/// 14  reserved           u16      0
/// 16  created            f64      seconds since 1970
/// 24  expiration         f64      seconds since 1970, NaN for none
/// 32  checksum           32 bytes the data's, big-endian, zero-padded
/// 64  metadata hash      u64      XXH3-64 of the JSON
/// 72  reserved           u64      0
/// 80  footer hash        u64      XXH3-64 of bytes 0..<80
/// 88  magic              8 bytes  "APENTRY1"
/// ```
/// Little-endian. The footer is what opening a cache reads of each entry (one `pread`); the JSON is
/// read when someone asks for the metadata. A file that does not end in a whole, matching footer is
/// not an entry: it is never served.
struct EntryFooter: Equatable, Sendable {
    static let size = 96
    static let magic: [UInt8] = Array("APENTRY1".utf8)

    var dataSize: Int64
    var metadataLength: Int
    var kind: AssetKind
    var checksum: ContentChecksum
    var created: Double
    var expiration: Double?
    var metadataHash: UInt64

    /// The whole file's length: data, JSON and footer.
    var fileSize: Int64 { dataSize + Int64(metadataLength) + Int64(Self.size) }

    static let kinds: [AssetKind] = [.image, .lottie, .video, .raw]

    var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size)
        out.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt64(dataSize).littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: UInt32(metadataLength).littleEndian, toByteOffset: 8, as: UInt32.self)
            raw[12] = UInt8(Self.kinds.firstIndex(of: kind) ?? 3)
            raw[13] = checksum.algorithm.rawValue
            raw.storeBytes(of: created.bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: (expiration ?? .nan).bitPattern.littleEndian, toByteOffset: 24, as: UInt64.self)
            let w = checksum.words
            for (i, word) in [w.0, w.1, w.2, w.3].enumerated() {
                raw.storeBytes(of: word.bigEndian, toByteOffset: 32 + 8 * i, as: UInt64.self)
            }
            raw.storeBytes(of: metadataHash.littleEndian, toByteOffset: 64, as: UInt64.self)
            let check = FastHash.of(UnsafeRawBufferPointer(rebasing: raw[0..<80]))
            raw.storeBytes(of: check.littleEndian, toByteOffset: 80, as: UInt64.self)
            for (i, b) in Self.magic.enumerated() { raw[88 + i] = b }
        }
        return out
    }

    init(dataSize: Int64, metadataLength: Int, kind: AssetKind, checksum: ContentChecksum, created: Double,
         expiration: Double?, metadataHash: UInt64) {
        self.dataSize = dataSize
        self.metadataLength = metadataLength
        self.kind = kind
        self.checksum = checksum
        self.created = created
        self.expiration = expiration
        self.metadataHash = metadataHash
    }

    /// Reads a footer; nil when the bytes are not a whole, self-consistent footer of a file of
    /// `fileSize` bytes.
    init?(_ raw: UnsafeRawBufferPointer, fileSize: Int64) {
        guard raw.count == Self.size, Array(raw[88..<96]) == Self.magic else { return nil }
        let check = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 80, as: UInt64.self))
        guard FastHash.of(UnsafeRawBufferPointer(rebasing: raw[0..<80])) == check else { return nil }
        let dataSize = Int64(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)))
        let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        guard Int(raw[12]) < Self.kinds.count,
              let algorithm = ContentChecksum.Algorithm(rawValue: raw[13]),
              dataSize >= 0, dataSize + Int64(length) + Int64(Self.size) == fileSize
        else { return nil }
        func word(_ i: Int) -> UInt64 { UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 32 + 8 * i, as: UInt64.self)) }
        let expiration = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        self.init(
            dataSize: dataSize, metadataLength: length, kind: Self.kinds[Int(raw[12])],
            checksum: ContentChecksum(algorithm: algorithm, words: (word(0), word(1), word(2), word(3))),
            created: Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))),
            expiration: expiration.isNaN ? nil : expiration,
            metadataHash: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 64, as: UInt64.self)))
    }
}
