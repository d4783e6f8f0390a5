import Foundation
import Testing

import AssetCodecs

/// What the PNG decoder checks: the CRC-32 of every critical chunk (IDAT's included, before libpng
/// reads it), libpng's default for ancillary chunks, and not zlib's Adler-32 of the image data.
@Suite struct ChecksumTests {
    /// The chunks of a PNG file, in order.
    static func chunks(_ data: [UInt8]) -> [(type: String, payload: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= data.count {
            let size = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, Array(data[(offset + 8)..<(offset + 8 + size)])))
            offset += 12 + size
        }
        return result
    }

    /// `chunks` written as a file, with correct CRCs.
    static func file(_ chunks: [(type: String, payload: [UInt8])]) -> [UInt8] {
        PNGChunks.signature + chunks.flatMap { PNGChunks.chunk($0.type, $0.payload) }
    }

    /// The file with the CRC of the first `type` chunk flipped.
    static func breakingCRC(of type: String, in data: [UInt8]) throws -> [UInt8] {
        var offset = 8
        var damaged = data
        for chunk in chunks(data) {
            if chunk.type == type {
                damaged[offset + 8 + chunk.payload.count] ^= 0xFF
                return damaged
            }
            offset += 12 + chunk.payload.count
        }
        throw NoSuchChunk(type: type)
    }

    struct NoSuchChunk: Error { var type: String }

    static let sample = "png/pngsuite/basn3p04.png"  // palette, with its PLTE

    @Test(arguments: ["IHDR", "PLTE", "IDAT", "IEND"])
    func aBadCriticalCRCIsCorrupt(_ type: String) throws {
        let data = try Self.breakingCRC(of: type, in: [UInt8](try Fixtures.data(Self.sample)))
        let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(data) }
        #expect(error == .corrupt)
        #expect(error?.message == "\(type): CRC error")
        let rows = #expect(throws: CodecError.self) { try ImageDecoder().rowReader(for: data) }
        #expect(rows == .corrupt)
    }

    @Test func theCorpusFilesWithABadIDATCRCStillFail() throws {
        for path in ["png/pngsuite/xcsn0g01.png", "png/libpng-testpngs/crashers/badcrc.png"] {
            let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(Fixtures.data(path)) }
            #expect(error?.message == "IDAT: CRC error")
        }
    }

    @Test func aBadAncillaryCRCDropsTheChunkWithAWarning() throws {
        let original = [UInt8](try Fixtures.data("png/pngsuite/basn6a08.png"))
        var chunks = Self.chunks(original)
        chunks.insert(("tEXt", Array("Comment\0hello".utf8)), at: 1)
        let data = try Self.breakingCRC(of: "tEXt", in: Self.file(chunks))
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.bitmap.pixels == (try ImageDecoder().decode(original)).bitmap.pixels)
        #expect(decoded.warnings.contains { $0.contains("CRC") })
    }

    /// A zlib stream whose Adler-32 is wrong, in IDAT chunks whose CRCs are right, decodes (the CRCs
    /// show that the bytes are those written), as libspng does; Pillow refuses it.
    @Test func aWrongAdler32UnderRightCRCsDecodes() throws {
        let original = [UInt8](try Fixtures.data("png/pngsuite/basn6a08.png"))
        var chunks = Self.chunks(original)
        let data = chunks.filter { $0.type == "IDAT" }.flatMap(\.payload)
        let damaged = data.dropLast(4) + data.suffix(4).map { $0 ^ 0xFF }
        chunks.removeAll { $0.type == "IDAT" }
        chunks.insert(("IDAT", Array(damaged)), at: chunks.count - 1)
        let decoded = try ImageDecoder().decode(Self.file(chunks))
        #expect(decoded.bitmap.pixels == (try ImageDecoder().decode(original)).bitmap.pixels)
    }

    @Test func aBadHeaderCRCFailsTheHeaderRead() throws {
        let data = try Self.breakingCRC(of: "IHDR", in: [UInt8](try Fixtures.data(Self.sample)))
        #expect(throws: CodecError.corrupt) { try ImageDecoder().header(of: data) }
        // The header read stops at the first IDAT: a bad IDAT CRC is found by the decode.
        let idat = try Self.breakingCRC(of: "IDAT", in: [UInt8](try Fixtures.data(Self.sample)))
        #expect(try ImageDecoder().header(of: idat).width == 32)
    }
}
