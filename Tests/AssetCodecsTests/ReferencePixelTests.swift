import Foundation
import Testing

@testable import AssetCodecs

/// Every decodable fixture decodes to exactly the pixels of an independent reference (pypng with
/// the pixel contract for PNG, djpeg for JPEG); see scripts/reference-image-hashes.
@Suite struct ReferencePixelTests {
    @Test func theReferenceTableCoversTheCorpus() {
        let kinds = Dictionary(grouping: ReferenceImage.all, by: \.kind).mapValues(\.count)
        #expect(kinds["png-decode-ok"] == CorpusFile.expecting { $0 == "decode-ok" }.filter { $0.path.hasPrefix("png/") }.count)
        #expect(kinds["jpeg-decode-ok"] == CorpusFile.expecting { $0 == "decode-ok" }.filter { $0.path.hasPrefix("jpeg/") }.count)
        #expect(kinds["jpeg-decode-ok-with-warning"] == CorpusFile.expecting { $0 == "decode-ok-with-warning" }.count)
        #expect((kinds["png-generated"] ?? 0) >= 50)
        #expect((kinds["jpeg-scaled"] ?? 0) >= 15)
    }

    @Test(arguments: ReferenceImage.of(kinds: ["png-decode-ok", "png-generated", "png-reference-output", "jpeg-decode-ok"]))
    func decodesToTheReferencePixels(_ reference: ReferenceImage) throws {
        let decoded = try ImageDecoder().decode(Fixtures.data(reference.path))
        #expect(decoded.bitmap.width == reference.width)
        #expect(decoded.bitmap.height == reference.height)
        #expect(decoded.bitmap.bytesPerRow == reference.width * 4)
        #expect(decoded.bitmap.cost == reference.width * reference.height * 4)
        #expect(Fixtures.sha256(decoded.bitmap.pixels) == reference.sha256)
    }

    @Test(arguments: ReferenceImage.of(kinds: ["jpeg-decode-ok-with-warning"]))
    func completesWithWarningsAndTheReferencePixels(_ reference: ReferenceImage) throws {
        let decoded = try ImageDecoder().decode(Fixtures.data(reference.path))
        #expect(!decoded.warnings.isEmpty)
        #expect(decoded.bitmap.width == reference.width && decoded.bitmap.height == reference.height)
        #expect(Fixtures.sha256(decoded.bitmap.pixels) == reference.sha256)
    }

    @Test(arguments: ReferenceImage.of(kinds: ["jpeg-scaled"]))
    func dctScalingMatchesDjpegScale(_ reference: ReferenceImage) throws {
        let data = try Fixtures.data(reference.path)
        var pixels = [UInt8](repeating: 0, count: reference.width * reference.height * 4)
        _ = try data.withUnsafeBytes { bytes in
            try pixels.withUnsafeMutableBytes { destination in
                try CodecBridge.decode(
                    format: .jpeg, bytes: bytes, scaleDenominator: reference.scale, limits: .init(), page: nil,
                    width: reference.width, height: reference.height, into: destination, bytesPerRow: reference.width * 4)
            }
        }
        #expect(Fixtures.sha256(pixels) == reference.sha256)
    }

    @Test func maxDimensionUsesDctScalingWhenItLandsOnTheTarget() throws {
        // testorig.jpg is 227x149: 1/2 gives 114x75, which is also what maxDimension 114 asks for.
        let reference = try #require(ReferenceImage.all.first { $0.path == "jpeg/libjpeg-turbo/testorig.jpg" && $0.scale == 2 })
        let decoder = ImageDecoder(configuration: .init(maxDimension: 114))
        let decoded = try decoder.decode(Fixtures.data(reference.path))
        #expect(decoded.bitmap.width == 114 && decoded.bitmap.height == 75)
        #expect(Fixtures.sha256(decoded.bitmap.pixels) == reference.sha256)
    }
}
