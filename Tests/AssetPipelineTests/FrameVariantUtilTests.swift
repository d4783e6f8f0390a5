import AssetCodecs
import AssetImaging
import AssetLoading
import AssetLottieRender
import AssetStorage
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

/// `ImageUtil.variant(for:transform:)` with a frame: a still frame of a Lottie animation made,
/// stored and named as any variant.
@Suite("ImageUtil frame variants")
struct FrameVariantUtilTests {
    static let moving = "lottie/lottie-docs/parenting.json"  // 512 x 512, 180 frames at 60 fps

    @Test func aFrameVariantIsRenderedOnceAtTheOutputSizeThenCached() async throws {
        let json = try UtilTestSupport.fixture(Self.moving)
        try await withTestOrigin { origin in
            origin.setRoute("/a.json", .resource(TestResource(content: .bytes(json), eTag: "\"1\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let lottie = LottieUtil(manager: manager)
                let util = ImageUtil(manager: manager, lottie: lottie)
                let url = try #require(URL(string: origin.url("/a.json")))
                let transform = try ImageTransform(parsing: "frame=1.5s,w=100,format=png")
                let first = try await util.variant(for: url, transform: transform)
                #expect(first.origin == .transformed)
                #expect((first.format, first.width, first.height) == (.png, 100, 100))
                #expect(first.key.contains("frame=1.5s,w=100,format=png"))
                #expect(lottie.renderCount == 1)
                #expect(util.transformCount == 1)
                // rendered at the output's size, not at 512 and resized: a render of 100 x 100 is
                // these very pixels
                let direct = try await lottie.frame(for: url, at: .frame(90), size: LottieFrameSize(width: 100))
                let decoded = try ImageDecoder().decode(first.data).bitmap
                #expect(decoded.pixels == direct.pixels)

                #expect(try await util.variant(for: url, transform: transform).origin == .memory)
                manager.trimMemory(toFraction: 0)
                #expect(try await util.variant(for: url, transform: transform).origin == .disk)
                #expect(lottie.renderCount == 2)  // the direct render above; the variant's only once
            }
        }
    }

    @Test func theRenderWidthCoversTheResizeBox() throws {
        let limits = ImageProcessor.Configuration()
        func width(_ text: String, _ w: Double = 512, _ h: Double = 256) throws -> Int? {
            ImageUtil.renderWidth(naturalWidth: w, naturalHeight: h, transform: try ImageTransform(parsing: text), configuration: limits)
        }
        #expect(try width("w=100") == 100)
        #expect(try width("h=100") == 200)
        #expect(try width("w=100,h=100,fit=cover") == 200)  // covers 100 x 100: 200 x 100, then cropped
        #expect(try width("w=100,h=100,fit=fill") == 200)  // stretched from a frame at least as large
        #expect(try width("w=2000") == 512)  // not enlarged
        #expect(try width("w=2000,enlarge=1") == 2000)
        #expect(try width("original") == 512)
        #expect(try width("w=100", .nan, 10) == nil)
        #expect(try width("w=100", 512, 0) == nil)
    }

    @Test func aSourceThatIsNoAnimationIsATypedErrorAndNothingIsRendered() async throws {
        let jpeg = try UtilTestSupport.fixture("jpeg/libjpeg-turbo/testorig.jpg")
        try await withTestOrigin { origin in
            origin.setRoute("/p.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"p\"", headers: freshForAnHour)))
            origin.setRoute("/t.json", .resource(TestResource(content: .bytes(Array("{\"hello\": [1, 2]}".utf8)), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                for path in ["/p.jpg", "/t.json"] {
                    let url = try #require(URL(string: origin.url(path)))
                    await #expect(throws: ImagingError.notAnAnimation) {
                        try await util.variant(for: url, transform: try ImageTransform(parsing: "frame=0,w=10"))
                    }
                }
                #expect(util.lottie.renderCount == 0)
            }
        }
    }
}
