import Foundation
import Testing

@testable import AssetCodecs

/// The GIF decoder reads LZW data as libnsgif (libvips 8.18's loader) reads them, in one pass of its
/// own (`apc_gif_lzw`). Where giflib's DGifGetLine stopped with an error, libvips decodes on: these
/// fuzzing seeds (one whose codes giflib calls "defective", two whose data giflib ends early) now
/// give libvips 8.18's pixels (sha256 over the RGBA rows of pyvips' `new_from_file(fail=False)`,
/// a band of 255 added where it has three), where the giflib decode failed them.
@Suite struct GIFLZWTests {
    @Test(arguments: [
        ("fa19c3affd339a905d5b87cfdea6e50a6fe215fd", 47, 61185, "c34f4907c82e92fc78170d5a44de3b75a30663415fb349e7d44ab10902331783"),
        ("81c351cba2e462548aea49001100820762a18faa", 1265, 1024, "08c0530a6705ceb9961a2ac857b0d48edbc81ac8cae68ac6d76de523c05916f6"),
        ("7b405d86a30219ecaec44f6d5142d4021ee148e4", 51, 11519, "f416e2812e39812e6de3995caaf12652e60df4a0234c5fbf4aaa9f094c1619f6"),
    ])
    func aFrameGiflibRefusedDecodesToLibvipsPixels(_ seed: String, _ width: Int, _ height: Int, _ sha256: String) throws {
        let data = try Fixtures.data("fuzz/gif/seeds/\(seed)")
        let decoded = try ImageDecoder().decode(data)
        #expect(decoded.bitmap.width == width && decoded.bitmap.height == height)
        #expect(Fixtures.sha256(decoded.bitmap.pixels) == sha256)
        // the animation reader draws its first frame the same way
        let reader = try AnimationReader(data)
        let first = try #require(try reader.next())
        #expect(Fixtures.sha256(first.bitmap.pixels) == sha256)
    }
}
