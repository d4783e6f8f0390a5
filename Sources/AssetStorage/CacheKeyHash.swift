import Crypto

/// File names for cache keys: the lowercase hex SHA-256 of the key's UTF-8 bytes.
public enum CacheKeyHash {
    /// The 64-character lowercase hex SHA-256 of `key`'s UTF-8 bytes.
    public static func fileName(for key: String) -> String {
        KeyDigest(key: key).hex
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = HexDigits.digits
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
