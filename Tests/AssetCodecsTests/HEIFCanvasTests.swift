import Foundation
import Testing

@testable import AssetCodecs

/// libheif 1.15 allocates the canvas of a derived image ('grid', 'iovl') from the size in the
/// item's data, not from the 'ispe' that the pixel budget is checked against. `scripts/fuzz heif-c`
/// found a 26 KB file whose primary overlay declares 27,974 x 29,285 in its data and 'ispe' sizes
/// of at most 96 x 64: libheif allocated 2.46 GB and `assetpipe decode` crashed after 4.5 GB. The
/// largest canvas a grid or overlay declares is checked against the budget before libheif reads.
@Suite struct HEIFCanvasTests {
    static let path = "fuzz/heif/crashes/oom-d6f02e6f2e4498c7c2a4b09e9adf82d55743a53f"

    @Test func anOverlayLargerThanItsSizeIsRefusedBeforeLibheif() throws {
        let data = try Fixtures.data(Self.path)
        let decoder = ImageDecoder(configuration: .init(pixelBudget: 40_000_000))
        do {
            _ = try decoder.decode(data)
            Issue.record("decoded")
        } catch let error as CodecError {
            #expect(error == .tooLarge, "\(error)")
            #expect(error.message.contains("canvas"), "\(error)")
        }
    }

    /// Every HEIF of Fixtures that decoded before still decodes: their grids and overlays declare
    /// canvases within the default budget (the iPhone photo's grid is 4032 x 3024).
    @Test func theIPhoneGridStillDecodes() throws {
        let decoded = try ImageDecoder().decode(Fixtures.data("heif/pillow-heif/heif_other/arrow.heic"))
        #expect(decoded.bitmap.width == 3024 && decoded.bitmap.height == 4032)
    }
}
