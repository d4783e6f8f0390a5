import AssetCodecs
import AssetImaging
import AssetLoading
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

/// `ImageUtil.image(for:)` and `variant(for:)` over the source formats past PNG and JPEG, from a
/// loopback origin.
@Suite("ImageUtil over every source format")
struct FormatSourcesUtilTests {
    static let sources: [(fixture: String, format: ImageFormat, width: Int, height: Int)] = [
        ("webp/pillow/transparent.webp", .webp, 200, 150),
        ("avif/libavif/abc_color_irot_alpha_irot.avif", .avif, 0, 0),
        ("heif/pillow-heif/heif/zPug_3.heic", .heif, 0, 0),
        ("gif/pillow/iss634.gif", .gif, 245, 245),
        ("tiff/pillow/16bit.MM.deflate.tif", .tiff, 64, 64),
        ("svg/libvips/logo.svg", .svg, 736, 552),
        ("jxl/libgd/tests/jxl/alpha_distance_1_0.jxl", .jpegXL, 32, 32),
    ]

    @Test func everyFormatDecodesAndMakesVariants() async throws {
        try await withTestOrigin { origin in
            for (index, source) in Self.sources.enumerated() {
                origin.setRoute("/\(index)", .resource(TestResource(
                    content: .bytes(try UtilTestSupport.fixture(source.fixture)), eTag: "\"\(index)\"", headers: freshForAnHour)))
            }
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                for (index, source) in Self.sources.enumerated() {
                    let url = try #require(URL(string: origin.url("/\(index)")))
                    let bitmap = try await util.image(for: url)
                    let decoded = try await util.decodedImage(for: url)
                    #expect(bitmap == decoded.bitmap)
                    let expected = try ImageDecoder().decode(try UtilTestSupport.fixture(source.fixture))
                    #expect(decoded.header.format == source.format, "\(source.fixture)")
                    #expect(decoded.bitmap == expected.bitmap, "\(source.fixture)")
                    if source.width > 0 { #expect(decoded.bitmap.width == source.width && decoded.bitmap.height == source.height) }

                    let variant = try await util.variant(for: url, transform: try ImageTransform(parsing: "w=24,format=webp"))
                    #expect(variant.width == 24, "\(source.fixture)")
                    #expect(try ImageDecoder().header(of: variant.data).format == .webp)
                    // a second time from memory
                    let again = try await util.variant(for: url, transform: try ImageTransform(parsing: "w=24,format=webp"))
                    #expect(again.origin == .memory && again.data == variant.data)
                }
            }
        }
    }

    /// `format=auto` without a list keeps the source's format where it is one we write (WebP,
    /// AVIF), else PNG when the image has alpha (GIF, SVG) and JPEG when it has none (HEIC).
    @Test func autoWithoutAListKeepsWhatItCan() async throws {
        try await withTestOrigin { origin in
            let cases: [(String, OutputFormat)] = [
                ("webp/pillow/transparent.webp", .webp), ("avif/libavif/white_1x1.avif", .avif),
                // an animated GIF stays animated in GIF; a still one with alpha becomes PNG
                ("gif/pillow/iss634.gif", .gif), ("gif/image-gif/samples/alpha_gif_a.gif", .png),
                ("svg/libvips/logo.svg", .png), ("heif/pillow-heif/heif/zPug_3.heic", .jpeg),
            ]
            for (index, (fixture, _)) in cases.enumerated() {
                origin.setRoute("/\(index)", .resource(TestResource(content: .bytes(try UtilTestSupport.fixture(fixture)), headers: freshForAnHour)))
            }
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                for (index, (fixture, format)) in cases.enumerated() {
                    let url = try #require(URL(string: origin.url("/\(index)")))
                    let variant = try await util.variant(for: url, transform: try ImageTransform(parsing: "w=16"))
                    #expect(variant.format == format, "\(fixture)")
                }
            }
        }
    }

    /// An AVIF whose irot/imir say "turn me" is made upright in the variant, as a JPEG's EXIF
    /// orientation is.
    @Test func anAVIFsTransformationsAreAppliedToTheVariant() async throws {
        let data = try UtilTestSupport.fixture("avif/av1-avif/Link-U/kimono.rotate90.avif")
        let header = try ImageDecoder().header(of: data)
        #expect(header.orientation == 6)
        let output = try ImageProcessor().process(data, transform: try ImageTransform(parsing: "w=100,format=png"))
        // stored landscape, shown portrait
        #expect(header.width > header.height)
        #expect(output.height > output.width)
    }
}
