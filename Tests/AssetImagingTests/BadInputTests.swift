import AssetCodecs
import AssetImaging
import Foundation
import Testing

@Suite struct BadInputTests {
    let source = { try! ImagingFixtures.data("imaging/orientation-1.jpg") }()

    @Test func corruptAndTruncatedSourcesAreCodecErrors() throws {
        #expect(throws: CodecError.self) { try ImageProcessor().process(Data([0xFF, 0xD8, 0xFF]), transform: ImageTransform(width: 10)) }
        // a GIF signature with no image after it: the GIF decoder's typed error
        #expect(throws: CodecError.truncated) { try ImageProcessor().process(Data("GIF89a-not-really".utf8), transform: ImageTransform(width: 10)) }
        #expect(throws: CodecError.unsupported) { try ImageProcessor().process(Data("BM-a-bitmap-header".utf8), transform: ImageTransform(width: 10)) }
        var broken = source
        broken.replaceSubrange(200..<260, with: [UInt8](repeating: 0xFF, count: 60))
        // Either a typed error or a decode with libjpeg's warnings: never a crash.
        _ = try? ImageProcessor().process(broken, transform: ImageTransform(width: 10))
    }

    @Test func aDecompressionBombIsRefusedFromItsHeader() throws {
        // A JPEG header that declares 60000 x 60000 pixels and nothing else.
        var bomb = Array(source.prefix(400))
        guard let sof = (0..<(bomb.count - 9)).first(where: { bomb[$0] == 0xFF && (bomb[$0 + 1] == 0xC0 || bomb[$0 + 1] == 0xC2) }) else {
            Issue.record("no SOF marker in the fixture")
            return
        }
        bomb[sof + 5] = 0xEA; bomb[sof + 6] = 0x60  // height 60000
        bomb[sof + 7] = 0xEA; bomb[sof + 8] = 0x60  // width 60000
        #expect(throws: CodecError.tooLarge) { try ImageProcessor().process(bomb, transform: ImageTransform(width: 100)) }
    }

    @Test func outputsBeyondTheLimitsAreRefusedBeforeDecoding() throws {
        var limits = ImageProcessor.Configuration()
        limits.maxOutputPixels = 100_000
        let enlarge = ImageTransform(width: 4000, enlarge: true)
        #expect(throws: ImagingError.outputTooLarge) { try ImageProcessor(configuration: limits).process(source, transform: enlarge) }
        var tiny = ImageProcessor.Configuration()
        tiny.maxOutputBytes = 100
        #expect(throws: ImagingError.outputTooLarge) {
            try ImageProcessor(configuration: tiny).process(source, transform: ImageTransform(format: .format(.png)))
        }
    }

    @Test func absurdTransformsAreRefused() {
        for transform in [ImageTransform(width: 0), ImageTransform(width: 100_000), ImageTransform(quality: 0)] {
            #expect(throws: ImagingError.invalidTransform) { try ImageProcessor().process(source, transform: transform) }
        }
    }

    @Test func autoFormatFollowsAcceptAndAlpha() throws {
        let png = try ImagingFixtures.data("imaging/basn6a08.png")
        let processor = ImageProcessor()
        #expect(try processor.plan(for: png, transform: ImageTransform(), accepting: [.avif, .webp, .jpeg]).format == .avif)
        #expect(try processor.plan(for: png, transform: ImageTransform(), accepting: [.webp, .jpeg, .png]).format == .webp)
        #expect(try processor.plan(for: png, transform: ImageTransform(), accepting: [.jpeg, .png]).format == .png)
        #expect(try processor.plan(for: source, transform: ImageTransform(), accepting: [.jpeg, .png]).format == .jpeg)
        #expect(try processor.plan(for: source, transform: ImageTransform(), accepting: nil).format == .jpeg)
        #expect(try processor.plan(for: png, transform: ImageTransform(), accepting: nil).format == .png)
    }
}
