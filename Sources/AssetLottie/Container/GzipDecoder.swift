import Foundation

/// Decompresses a gzip member (RFC 1952) in memory with a bound on the output size.
///
/// The header is parsed here; the raw deflate stream goes through `Inflater`, and the trailer's
/// CRC-32 and length are checked.
struct GzipDecoder {
    let maxOutputBytes: Int

    func decompress(_ input: Data) throws(LottieError) -> Data {
        let bytes = [UInt8](input)
        let corrupt = LottieError.invalidCompressedData
        guard bytes.count >= 18, bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 8 else {
            throw corrupt.with("not a gzip stream with deflate compression")
        }
        let flags = bytes[3]
        var offset = 10
        if flags & 0x04 != 0 {
            guard offset + 2 <= bytes.count else { throw corrupt.with("truncated gzip header") }
            offset += 2 + Int(bytes[offset]) + Int(bytes[offset + 1]) << 8
        }
        for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {
            while offset < bytes.count, bytes[offset] != 0 { offset += 1 }
            offset += 1
        }
        if flags & 0x02 != 0 { offset += 2 }
        let trailerStart = bytes.count - 8
        guard offset <= trailerStart else { throw corrupt.with("truncated gzip stream") }
        let expectedCRC = UInt32(bytes[trailerStart]) | UInt32(bytes[trailerStart + 1]) << 8
            | UInt32(bytes[trailerStart + 2]) << 16 | UInt32(bytes[trailerStart + 3]) << 24
        let expectedSize = UInt32(bytes[trailerStart + 4]) | UInt32(bytes[trailerStart + 5]) << 8
            | UInt32(bytes[trailerStart + 6]) << 16 | UInt32(bytes[trailerStart + 7]) << 24
        let deflate = input.subdata(in: (input.startIndex + offset)..<(input.startIndex + trailerStart))
        let (output, crc) = try Inflater.inflate(deflate, maxOutputBytes: maxOutputBytes, what: "gzip stream")
        guard crc == expectedCRC, UInt32(truncatingIfNeeded: output.count) == expectedSize else {
            throw corrupt.with("gzip checksum or length mismatch")
        }
        return output
    }
}
