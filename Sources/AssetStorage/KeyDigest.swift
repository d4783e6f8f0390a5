import Crypto

/// The SHA-256 of a cache key as four big-endian words: the index's key and, in hex, the entry's
/// file name. Kept binary so that a hit builds no string.
struct KeyDigest: Hashable, Sendable {
    var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    init(key: String) {
        var key = key
        let digest = key.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        var w: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            w = (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                 UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                 UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                 UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        }
        self.init(w0: w.0, w1: w.1, w2: w.2, w3: w.3)
    }

    /// From a 64-digit hex file name; nil for anything else.
    init?(hex: some StringProtocol) {
        guard hex.utf8.count == 64, let w = HexDigits.words(Array(hex.utf8)) else { return nil }
        self.init(w0: w[0], w1: w[1], w2: w[2], w3: w[3])
    }

    /// The 64 lowercase hex digits.
    var hex: String { HexDigits.string([w0, w1, w2, w3]) }

    /// The shard folder: the first byte (the first two hex digits).
    var shard: Int { Int(w0 >> 56) }

    /// `ab/<hash><suffix>` relative to the cache root, as a C string, without building a `String`.
    func withRelativePath<T>(_ suffix: StaticString, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        let count = 3 + 64 + suffix.utf8CodeUnitCount + 1
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            let digits = HexDigits.digits
            var i = 0
            buffer[0] = digits[Int(w0 >> 60)]
            buffer[1] = digits[Int((w0 >> 56) & 0xF)]
            buffer[2] = UInt8(ascii: "/")
            i = 3
            for word in [w0, w1, w2, w3] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    buffer[i] = digits[Int((word >> UInt64(shift)) & 0xF)]
                    i += 1
                }
            }
            suffix.withUTF8Buffer { s in
                for c in s {
                    buffer[i] = c
                    i += 1
                }
            }
            buffer[i] = 0
            return try buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: count) { try body($0) }
        }
    }

    /// `ab/<hash><suffix>` as a string (for messages and the slower paths).
    func relativePath(_ suffix: String) -> String {
        let hex = self.hex
        return "\(hex.prefix(2))/\(hex)\(suffix)"
    }
}
