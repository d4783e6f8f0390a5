import AssetCodecs
import AssetImaging
import Foundation
import Testing

/// Orientation and colour against the fixtures of `Fixtures/imaging/` (SOURCES.md says how each
/// was made and checked with djpeg, exiftool, Pillow and libvips).
@Suite struct OrientationAndColorTests {
    let lossless = ImageTransform(format: .format(.png))

    @Test(arguments: 1...8)
    func everyOrientationComesOutUpright(_ orientation: Int) throws {
        let source = try ImagingFixtures.data("imaging/orientation-\(orientation).jpg")
        let header = try ImageDecoder().header(of: source)
        #expect(header.orientation == orientation)
        let output = try ImageProcessor().process(source, transform: lossless)
        #expect((output.width, output.height) == (224, 144))
        // libjpeg's IDCT rounds differently on transposed blocks: 5-8 have a reference of their own.
        let reference = try ImagingFixtures.decode(Array(try ImagingFixtures.data(
            orientation <= 4 ? "imaging/orientation-upright.png" : "imaging/orientation-upright-5to8.png")))
        let decoded = try ImagingFixtures.decode(output.bytes)
        #expect(ImagingFixtures.difference(decoded, reference).max == 0)
        // The tag is gone: a re-read of the output finds no orientation.
        #expect(try ImageDecoder().header(of: output.bytes).orientation == nil)
    }

    @Test func aPNGsExifOrientationIsAppliedToo() throws {
        let output = try ImageProcessor().process(try ImagingFixtures.data("imaging/orientation-6.png"), transform: lossless)
        let reference = try ImagingFixtures.decode(Array(try ImagingFixtures.data("imaging/orientation-upright.png")))
        #expect(ImagingFixtures.difference(try ImagingFixtures.decode(output.bytes), reference).max == 0)
    }

    @Test func orientationIsAppliedAfterTheResizePlan() throws {
        // Stored 144x224, shown 224x144: a width of 112 is the shown width.
        let output = try ImageProcessor().process(
            try ImagingFixtures.data("imaging/orientation-6.jpg"), transform: ImageTransform(width: 112, format: .format(.png)))
        #expect((output.width, output.height) == (112, 72))
    }

    @Test(arguments: [("icc-adobergb.jpg", "icc-adobergb-jpg-vips-srgb.png"), ("icc-adobergb.png", "icc-adobergb-png-vips-srgb.png")])
    func anAdobeRGBProfileIsConvertedAsLibvipsDoes(_ source: String, _ expected: String) throws {
        let output = try ImageProcessor().process(try ImagingFixtures.data("imaging/" + source), transform: lossless)
        let reference = try ImagingFixtures.decode(Array(try ImagingFixtures.data("imaging/" + expected)))
        let decoded = try ImagingFixtures.decode(output.bytes)
        let difference = ImagingFixtures.difference(decoded, reference, alpha: false)
        #expect(difference.max <= 2, "max \(difference.max), mean \(difference.mean)")
        // Unconverted, the same pixels are far off (the fixture's notes: max 36).
        var kept = lossless
        kept.keepICCProfile = true
        let untouched = try ImagingFixtures.decode(try ImageProcessor().process(try ImagingFixtures.data("imaging/" + source), transform: kept).bytes)
        #expect(ImagingFixtures.difference(untouched, reference, alpha: false).max > 10)
        #expect(try ImageDecoder().metadata(of: try ImageProcessor().process(try ImagingFixtures.data("imaging/" + source), transform: kept).bytes).iccProfile != nil)
    }

    @Test func aYCCKJPEGWithACMYKProfileMatchesLibvips() throws {
        let output = try ImageProcessor().process(try ImagingFixtures.data("imaging/ycck.jpg"), transform: lossless)
        let reference = try ImagingFixtures.decode(Array(try ImagingFixtures.data("imaging/ycck-vips-srgb.png")))
        let difference = ImagingFixtures.difference(try ImagingFixtures.decode(output.bytes), reference, alpha: false)
        #expect(difference.max <= 6 && difference.mean < 0.5, "max \(difference.max), mean \(difference.mean)")
    }

    @Test func aCMYKJPEGWithoutAProfileConvertsAsDjpegDoes() throws {
        let output = try ImageProcessor().process(try ImagingFixtures.data("imaging/jpg-cmyk-2.jpg"), transform: lossless)
        let reference = try ImagingFixtures.decode(Array(try ImagingFixtures.data("imaging/jpg-cmyk-2-imagemagick.png")))
        #expect(ImagingFixtures.difference(try ImagingFixtures.decode(output.bytes), reference, alpha: false).max <= 1)
    }

    @Test func metadataIsStrippedByDefaultAndKeptUprightOnRequest() throws {
        let source = try ImagingFixtures.data("imaging/orientation-6.jpg")
        let stripped = try ImageProcessor().process(source, transform: ImageTransform(format: .format(.jpeg)))
        #expect(try ImageDecoder().metadata(of: stripped.bytes).exif == nil)
        var keep = ImageTransform(format: .format(.jpeg))
        keep.keepMetadata = true
        let kept = try ImageProcessor().process(source, transform: keep)
        #expect(try ImageDecoder().metadata(of: kept.bytes).exif != nil)
        #expect(try ImageDecoder().header(of: kept.bytes).orientation == 1)
    }
}
