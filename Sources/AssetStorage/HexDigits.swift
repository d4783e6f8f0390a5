/// Lowercase hex of big-endian 64-bit words, and back.
enum HexDigits {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func string(_ words: [UInt64]) -> String {
        String(unsafeUninitializedCapacity: words.count * 16) { buffer in
            var i = 0
            for word in words {
                for shift in stride(from: 60, through: 0, by: -4) {
                    buffer[i] = digits[Int((word >> UInt64(shift)) & 0xF)]
                    i += 1
                }
            }
            return i
        }
    }

    /// Words from hex digits (a multiple of 16 of them, lowercase or uppercase); nil otherwise.
    static func words(_ utf8: [UInt8]) -> [UInt64]? {
        guard utf8.count % 16 == 0 else { return nil }
        var words: [UInt64] = []
        var word: UInt64 = 0
        for (i, c) in utf8.enumerated() {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            word = word << 4 | UInt64(v)
            if i % 16 == 15 {
                words.append(word)
                word = 0
            }
        }
        return words
    }

    /// Four big-endian words from up to 32 bytes (zero-padded).
    static func bigEndianWords(_ bytes: [UInt8]) -> (UInt64, UInt64, UInt64, UInt64) {
        var w: [UInt64] = [0, 0, 0, 0]
        for (i, b) in bytes.prefix(32).enumerated() {
            w[i / 8] |= UInt64(b) << UInt64(56 - 8 * (i % 8))
        }
        return (w[0], w[1], w[2], w[3])
    }
}
