import CXXHash
import Crypto

/// The checksum of an entry's bytes: its integrity check and its identity.
///
/// New entries use XXH3-128 (about 10x faster than SHA-256 here), written `xxh128:<32 hex>`; entries
/// stored by the two-file layout keep their SHA-256, written as 64 hex digits, so that an entry's
/// checksum string stays the same across the migration. Two entries with the same string hold the
/// same bytes (the service compares checksums to know that).
struct ContentChecksum: Equatable, Sendable {
    enum Algorithm: UInt8, Sendable {
        case xxh128 = 1
        case sha256 = 2
    }

    let algorithm: Algorithm
    /// The digest's bytes, big-endian as printed: 16 for XXH3-128, 32 for SHA-256, zero-padded to 32.
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(algorithm: Algorithm, words: (UInt64, UInt64, UInt64, UInt64)) {
        self.algorithm = algorithm
        self.words = algorithm == .xxh128 ? (words.0, words.1, 0, 0) : words
    }

    static func == (a: ContentChecksum, b: ContentChecksum) -> Bool {
        a.algorithm == b.algorithm && a.words == b.words
    }

    /// The first 16 bytes: what the index keeps to tell one commit of a key from another.
    var identity: ContentIdentity { ContentIdentity(high: words.0, low: words.1) }

    /// `xxh128:<32 hex>` or, for SHA-256, the 64 hex digits alone.
    var string: String {
        switch algorithm {
        case .xxh128: return "xxh128:" + HexDigits.string([words.0, words.1])
        case .sha256: return HexDigits.string([words.0, words.1, words.2, words.3])
        }
    }

    /// Reads ``string``; nil for anything else.
    init?(string: String) {
        var utf8 = Array(string.utf8)
        let algorithm: Algorithm
        if utf8.count == 64 {
            algorithm = .sha256
        } else if utf8.count == 39, utf8.starts(with: Array("xxh128:".utf8)) {
            algorithm = .xxh128
            utf8.removeFirst(7)
        } else {
            return nil
        }
        guard let parsed = HexDigits.words(utf8) else { return nil }
        let w = parsed + [0, 0]
        self.init(algorithm: algorithm, words: (w[0], w[1], w[2], w[3]))
    }

    /// The checksum of `bytes` with `algorithm`.
    static func of(_ bytes: UnsafeRawBufferPointer, algorithm: Algorithm = .xxh128) -> ContentChecksum {
        let hasher = ContentHasher(algorithm)
        hasher.update(bytes)
        return hasher.finalize()
    }
}

/// The first 16 bytes of a ``ContentChecksum``: what the index compares.
struct ContentIdentity: Hashable, Sendable {
    var high: UInt64
    var low: UInt64
    static let zero = ContentIdentity(high: 0, low: 0)
}

/// A checksum computed piece by piece. Not thread-safe: one writer or one reader owns it.
final class ContentHasher {
    let algorithm: ContentChecksum.Algorithm
    private let xxh: OpaquePointer?
    private var sha = SHA256()

    init(_ algorithm: ContentChecksum.Algorithm) {
        self.algorithm = algorithm
        if algorithm == .xxh128 {
            let state = XXH3_createState()
            XXH3_128bits_reset(state)
            xxh = state
        } else {
            xxh = nil
        }
    }

    deinit { if let xxh { XXH3_freeState(xxh) } }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        if let xxh {
            XXH3_128bits_update(xxh, bytes.baseAddress, bytes.count)
        } else {
            sha.update(bufferPointer: bytes)
        }
    }

    func finalize() -> ContentChecksum {
        if let xxh {
            let hash = XXH3_128bits_digest(xxh)
            return ContentChecksum(algorithm: .xxh128, words: (hash.high64, hash.low64, 0, 0))
        }
        let digest = Array(sha.finalize())
        return ContentChecksum(algorithm: .sha256, words: HexDigits.bigEndianWords(digest))
    }
}

/// XXH3-64 of a small buffer: the check of an entry's footer and metadata, and of the snapshot.
enum FastHash {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        XXH3_64bits(bytes.baseAddress, bytes.count)
    }

    static func of(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { of($0) }
    }
}
