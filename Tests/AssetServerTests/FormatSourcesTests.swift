import AssetCodecs
import AssetImaging
@testable import AssetServer
import AssetTestSupport
import Foundation
import Testing

/// `/v1/image` over every source format the decoders read: WebP, AVIF, HEIC, GIF, TIFF, SVG and
/// JPEG XL sources, in the query and the path form; alpha kept by `format=auto`; an SVG drawn at
/// the size asked for without following any reference.
@Suite("GET /v1/image over every source format")
struct FormatSourcesTests {
    struct Source: Sendable, CustomTestStringConvertible {
        var fixture: String
        var format: ImageFormat
        var testDescription: String { fixture }
    }

    static let sources = [
        Source(fixture: "webp/pillow/transparent.webp", format: .webp),
        Source(fixture: "avif/av1-avif/Link-U/fox.profile0.10bpc.yuv420.avif", format: .avif),
        Source(fixture: "heif/libheif/examples/example.heic", format: .heif),
        Source(fixture: "gif/pillow/iss634.gif", format: .gif),
        Source(fixture: "tiff/pillow/16bit.MM.deflate.tif", format: .tiff),
        Source(fixture: "svg/libvips/logo.svg", format: .svg),
        Source(fixture: "jxl/libjxl-conformance/testcases/alpha_nonpremultiplied/input.jxl", format: .jpegXL),
    ]

    static func serve(_ harness: ServerHarness, _ fixture: String, at path: String) throws {
        harness.origin.setRoute(path, .resource(TestResource(content: .bytes(try ServerHarness.fixture(fixture)), headers: freshForAnHour)))
    }

    @Test(arguments: sources)
    func aVariantOfEverySourceFormat(_ source: Source) async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, source.fixture, at: "/source")
            let answer = try await harness.send(harness.endpoint("image", originPath: "/source", "&w=48&format=png"))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.header("Content-Type") == "image/png")
            #expect(answer.header("X-Image-Width") == "48")
            let decoded = try ImageDecoder().decode(answer.body)
            #expect(decoded.bitmap.width == 48)
            // the same through the path form, answered from memory
            let transform = try ImageTransform(parsing: "w=48,format=png")
            let path = try await harness.send(ImageTargets.path(for: transform, source: harness.origin.url("/source")))
            #expect(path.status == 200)
            #expect(path.body == answer.body)
            #expect(harness.origin.requestCount(path: "/source") == 1)
        }
    }

    @Test func aWebPSourceWithAlphaKeepsItsAlphaUnderFormatAuto() async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, "webp/pillow/transparent.webp", at: "/a.webp")
            for (accept, format) in [(ImageServiceTests.chromeAccept, ImageFormat.avif), ("image/webp,*/*", .webp), ("image/png,image/jpeg", .png)] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/a.webp", "&w=100"), headers: [("Accept", accept)])
                #expect(answer.status == 200)
                let header = try ImageDecoder().header(of: answer.body)
                #expect(header.format == format)
                #expect(header.hasAlpha, "\(format) lost the alpha channel")
                let pixels = try ImageDecoder().decode(answer.body).bitmap
                #expect(stride(from: 3, to: pixels.pixels.count, by: 4).contains { pixels.pixels[$0] < 255 })
            }
        }
    }

    @Test func aTIFFPageIsChosenByPage() async throws {
        try await ServerHarness.with { harness in
            try Self.serve(harness, "tiff/pillow/multipage.tiff", at: "/m.tif")
            var bodies: Set<[UInt8]> = []
            for page in 0..<3 {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/m.tif", "&page=\(page)&format=png"))
                #expect(answer.status == 200)
                bodies.insert(answer.body)
            }
            #expect(bodies.count == 3)
            let past = try await harness.send(harness.endpoint("image", originPath: "/m.tif", "&page=3&format=png"))
            #expect(past.status == 422)
            #expect(past.text.contains("noSuchPage"))
        }
    }

    /// An SVG that points at a loopback URL, at /etc/passwd and at a file: URL is drawn without any
    /// of them (the origin sees no request for the target), at the size asked for, larger than its
    /// own too (a vector is redrawn, not scaled up).
    @Test func anSVGIsDrawnAtTheSizeAskedForAndFollowsNoReference() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/target.png", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("imaging/rgb-alpha-8-sRGB.png")), headers: freshForAnHour)))
            let svg = """
                <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20">
                <style>@import url("\(harness.origin.url("/target.png"))");</style>
                <rect width="40" height="20" fill="#0000ff"/>
                <image href="\(harness.origin.url("/target.png"))" width="20" height="20"/>
                <image xlink:href="/etc/passwd" width="20" height="20"/>
                <image href="file:///etc/passwd" width="20" height="20"/>
                </svg>
                """
            harness.origin.setRoute("/logo.svg", .resource(TestResource(content: .bytes(Array(svg.utf8)), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("image", originPath: "/logo.svg", "&w=400&format=png"))
            #expect(answer.status == 200, "\(answer.text)")
            let bitmap = try ImageDecoder().decode(answer.body).bitmap
            #expect(bitmap.width == 400 && bitmap.height == 200)
            // all blue: nothing was drawn over the rectangle
            #expect(bitmap.rgba(x: 100, y: 100) == SIMD4(0, 0, 255, 255))
            #expect(bitmap.rgba(x: 300, y: 100) == SIMD4(0, 0, 255, 255))
            #expect(harness.origin.requestCount(path: "/target.png") == 0)
        }
    }

    @Test func anSVGCanvasOfABillionPixelsIsRefusedFromItsHeader() async throws {
        try await ServerHarness.with { harness in
            let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10000"><rect width="10" height="10"/></svg>"#
            harness.origin.setRoute("/huge.svg", .resource(TestResource(content: .bytes(Array(svg.utf8)), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("image", originPath: "/huge.svg", "&w=64&format=png"))
            #expect(answer.status == 422)
            #expect(answer.text.contains("source_too_large") || answer.text.contains("tooLarge"), "\(answer.text)")
        }
    }
}

@Suite("maxPixels and cached variants")
struct MaxPixelsCachedVariantTests {
    /// A variant made and cached under the server's limit is no answer to a request whose own
    /// lower `maxPixels` refuses the source: from memory neither.
    @Test func aLowerLimitIsRefusedEvenWhenTheVariantIsCached() async throws {
        try await ServerHarness.with { harness in
            try ImageServiceTests.serveJPEG(harness)  // 227 x 149 = 33,823 pixels
            let target = harness.endpoint("image", originPath: "/photo.jpg", "&w=50&format=png")
            #expect(try await harness.send(target).status == 200)
            #expect(try await harness.send(target).header("X-Assetpipe-Cache") == "memory")
            let refused = try await harness.send(target + "&maxPixels=30000")
            #expect(refused.status == 422)
            #expect(refused.text.contains("source_too_large"), "\(refused.text)")
            let allowed = try await harness.send(target + "&maxPixels=40000")
            #expect(allowed.status == 200)
        }
    }
}
