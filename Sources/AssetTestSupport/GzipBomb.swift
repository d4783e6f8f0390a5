/// A gzip member that inflates to a great many zero bytes from very few: the decompression bomb
/// of the network-fault tests, built in memory (no fixture, no zlib).
///
/// The deflate stream is one dynamic-Huffman block whose literal/length code gives 1 bit to
/// "length 258" and whose distance code gives 1 bit to "distance 1": after one literal zero, every
/// 2 bits repeat 258 zeros, so a 1 MB body inflates to about 1 GiB (the most deflate allows). The
/// trailer carries the true CRC-32 and length, so a decoder without a bound inflates it all and
/// accepts it.
public enum GzipBomb {
    /// A member that inflates to `1 + 258 * repeats` zero bytes; its size is about `repeats / 4` bytes.
    public static func member(repeats: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(2, count: 2)  // BTYPE = dynamic Huffman
        bits.write(286 - 257, count: 5)  // HLIT: literal/length codes 0...285
        bits.write(0, count: 5)  // HDIST: one distance code
        // code length code lengths, in their order, up to the one of symbol 1: 18 -> 1 bit, 2 -> 2, 1 -> 2
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        let codeLengthLengths: [Int: UInt32] = [18: 1, 2: 2, 1: 2]
        bits.write(UInt32(order.count - 4), count: 4)  // HCLEN
        for symbol in order { bits.write(codeLengthLengths[symbol] ?? 0, count: 3) }
        // canonical code length codes: 18 -> 0, 1 -> 10, 2 -> 11
        func zeros(_ count: Int) {  // symbol 18: a run of 11...138 zeros, 7 extra bits
            bits.writeCode(0, length: 1)
            bits.write(UInt32(count - 11), count: 7)
        }
        bits.writeCode(0b11, length: 2)  // literal 0: length 2
        zeros(138)
        zeros(117)  // literals 1...255: unused
        bits.writeCode(0b11, length: 2)  // 256 (end of block): length 2
        zeros(28)  // lengths 257...284: unused
        bits.writeCode(0b10, length: 2)  // 285 (length 258): length 1
        bits.writeCode(0b10, length: 2)  // distance 0 (distance 1): length 1
        // canonical literal/length codes: 285 -> 0, 0 -> 10, 256 -> 11; distance 0 -> 0
        bits.writeCode(0b10, length: 2)  // one literal zero
        for _ in 0..<repeats { bits.write(0, count: 2) }  // length 258, distance 1
        bits.writeCode(0b11, length: 2)  // end of block
        let deflate = bits.finish()

        let inflated = UInt64(1 + 258 * repeats)
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        out += deflate
        let crc = CRC32.ofZeros(count: inflated)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: inflated >> UInt64(shift))) }
        return out
    }

    /// A member of about 1 MB that inflates to 1 GiB and a little more.
    public static let oneGigabyte: [UInt8] = member(repeats: (1 << 30) / 258 + 1)
}

/// Deflate's bit order: fields least significant bit first, Huffman codes most significant first.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var filled = 0

    mutating func write(_ value: UInt32, count: Int) {
        for i in 0..<count { push((value >> UInt32(i)) & 1) }
    }

    mutating func writeCode(_ code: UInt32, length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) { push((code >> UInt32(i)) & 1) }
    }

    private mutating func push(_ bit: UInt32) {
        current |= bit << UInt32(filled)
        filled += 1
        if filled == 8 {
            bytes.append(UInt8(current))
            current = 0
            filled = 0
        }
    }

    mutating func finish() -> [UInt8] {
        if filled > 0 { bytes.append(UInt8(current)) }
        return bytes
    }
}

/// CRC-32 (IEEE, as gzip uses it) of long runs of zeros, by squaring the zero-byte operator (as
/// zlib's `crc32_combine` does) instead of running over every byte.
enum CRC32 {
    static let polynomial: UInt32 = 0xEDB8_8320

    /// The CRC-32 of `count` zero bytes.
    static func ofZeros(count: UInt64) -> UInt32 {
        // crc of n zeros = ~(M^(8n) * ~0) where M shifts in one zero bit
        var operatorOneBit = [UInt32](repeating: 0, count: 32)
        operatorOneBit[0] = polynomial
        for i in 1..<32 { operatorOneBit[i] = 1 << UInt32(i - 1) }
        var power = square(square(square(operatorOneBit)))  // one zero byte
        var crc: UInt32 = 0xFFFF_FFFF
        var n = count
        while n > 0 {
            if n & 1 == 1 { crc = times(power, crc) }
            power = square(power)
            n >>= 1
        }
        return ~crc
    }

    private static func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        var v = vector
        var i = 0
        while v != 0 {
            if v & 1 == 1 { sum ^= matrix[i] }
            v >>= 1
            i += 1
        }
        return sum
    }

    private static func square(_ matrix: [UInt32]) -> [UInt32] {
        matrix.map { times(matrix, $0) }
    }
}
