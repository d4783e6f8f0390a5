import Foundation
import Testing

import AssetCodecs
import AssetTestSupport

/// A 613-byte JPEG that declares 49157 x 27397 pixels is refused from its header alone.
@Suite(.serialized) struct ResourceBombTests {
    static let bombs = CorpusFile.expecting { $0.contains("RESOURCE-BOMB") }

    @Test func theCorpusHasItsBomb() {
        #expect(Self.bombs.count >= 1)
    }

    @Test(arguments: bombs)
    func bombsAreRejectedBeforeAllocating(_ file: CorpusFile) async throws {
        let data = try Fixtures.data(file.path)
        let header = try ImageDecoder(configuration: .init(pixelBudget: .max)).header(of: data)
        #expect(header.pixelCount > 1_000_000_000)

        try await ProcessMemoryLock.shared.exclusive {
            let resetWorked = ProcessMemory.resetPeak()
            let before = try #require(ProcessMemory.value(resetWorked ? "VmRSS" : "VmHWM"))
            let error = #expect(throws: CodecError.self) { try ImageDecoder().decode(data) }
            #expect(error == .tooLarge)
            let peak = try #require(ProcessMemory.value("VmHWM"))
            #expect(peak - before < 64 << 20, "peak memory grew by \((peak - before) >> 20) MB")
        }
    }
}

/// A PNG header that declares 100000 x 100000 RGBA pixels (40 GB decoded) and no data.
@Suite(.serialized) struct PNGBombTests {
    static let bomb = PNGChunks.signature + PNGChunks.ihdr(width: 100_000, height: 100_000)
        + PNGChunks.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + PNGChunks.chunk("IEND", [])

    @Test func aDeclaredGiantPNGIsRejectedFromItsHeader() async throws {
        let header = try ImageDecoder(configuration: .init(pixelBudget: .max)).header(of: Self.bomb)
        #expect(header.width == 100_000 && header.height == 100_000)
        try await ProcessMemoryLock.shared.exclusive {
            let resetWorked = ProcessMemory.resetPeak()
            let before = try #require(ProcessMemory.value(resetWorked ? "VmRSS" : "VmHWM"))
            #expect(throws: CodecError.tooLarge) { try ImageDecoder().decode(Self.bomb) }
            let peak = try #require(ProcessMemory.value("VmHWM"))
            #expect(peak - before < 64 << 20, "peak memory grew by \((peak - before) >> 20) MB")
        }
    }

    @Test func libpngsOwnLimitIsASecondFence() throws {
        // The budget allows 100000 x 100000 but not a 100001-pixel-wide row: libpng refuses the IHDR.
        let wide = PNGChunks.signature + PNGChunks.ihdr(width: 100_001, height: 1) + PNGChunks.chunk("IEND", [])
        #expect(throws: CodecError.tooLarge) { try ImageDecoder(configuration: .init(pixelBudget: 100_000)).header(of: wide) }
    }
}

/// A small PNG whose ancillary chunk declares more bytes than the file holds (what the transform
/// fuzzer found: 259 bytes declaring a 1.9 GB iTXt, which libpng allocated and zeroed before
/// reading, its chunk limit being only a warning for a reader).
@Suite(.serialized) struct PNGChunkBombTests {
    static let bomb: [UInt8] = {
        var bytes = PNGChunks.signature + PNGChunks.ihdr(width: 2, height: 1)
        bytes += [0x73, 0x00, 0x00, 0x00] + Array("iTXt".utf8) + Array("Comment\0\0\0\0\0text".utf8)
        return bytes
    }()

    @Test func aChunkLongerThanTheDataFailsAsTruncatedWithoutAllocatingIt() async throws {
        try await ProcessMemoryLock.shared.exclusive {
            let resetWorked = ProcessMemory.resetPeak()
            let before = try #require(ProcessMemory.value(resetWorked ? "VmRSS" : "VmHWM"))
            #expect(throws: CodecError.truncated) { try ImageDecoder().header(of: Self.bomb) }
            #expect(throws: CodecError.truncated) { try ImageDecoder().decode(Self.bomb) }
            #expect(throws: CodecError.truncated) { try ImageDecoder().metadata(of: Self.bomb) }
            let peak = try #require(ProcessMemory.value("VmHWM"))
            #expect(peak - before < 64 << 20, "peak memory grew by \((peak - before) >> 20) MB")
        }
    }

    @Test func theFuzzersInputToo() throws {
        let found = try FuzzInputs.bytes("codecs/crashes/slow-unit-6ee3b09d915bde18fdd5b76b292a77245d837ef1")
        #expect(throws: CodecError.truncated) { try ImageDecoder().header(of: found) }
    }
}
