import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

@Suite("LottieFrameRenderer: images, dotLottie, .tgs")
struct ImageAndContainerTests {
    static let pngPath = "png/pngsuite/basn6a08.png"   // 32x32 RGBA, alpha from 0 to 255

    /// An animation of one image layer showing asset `image` (32x32) at the origin, unscaled.
    static func imageAnimation(path: String, directory: String = "", embedded: Int = 0) -> Data {
        Data("""
        {"v":"5.7.0","fr":30,"ip":0,"op":10,"w":32,"h":32,
         "assets":[{"id":"image","w":32,"h":32,"u":"\(directory)","p":"\(path)","e":\(embedded)}],
         "layers":[{"ty":2,"ind":1,"refId":"image","ip":0,"op":10,"st":0,
           "ks":{"a":{"a":0,"k":[0,0]},"p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}}]}
        """.utf8)
    }

    @Test func aDotLottieImageRendersItsPixels() throws {
        let png = try RenderFixtures.data(Self.pngPath)
        let archive = try RenderFixtures.dotLottie(animationID: "picture", json: Self.imageAnimation(path: "img_0.png", directory: "images/"),
                                                   images: ["img_0.png": png])
        let document = try LottieDocumentReader().read(archive)
        #expect(document.isDotLottie)
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try #require(document.animations.first?.animation))
        #expect(input.omittedImageCount == 0)
        let frame = try renderer.render(input, at: .frame(0))
        let image = try ImageDecoder().decode(png).bitmap
        #expect(frame.width == image.width && frame.height == image.height)
        // rlottie draws the image through its own decoder and blender: compare premultiplied
        // values (what a straight-alpha comparison of faint pixels would magnify) within 4 levels.
        var worst = 0
        for y in 0..<32 {
            for x in 0..<32 {
                let got = frame.rgba(x: x, y: y), want = image.rgba(x: x, y: y)
                worst = max(worst, abs(Int(got[3]) - Int(want[3])))
                for channel in 0..<3 {
                    let a = Int(got[channel]) * Int(got[3]) / 255, b = Int(want[channel]) * Int(want[3]) / 255
                    worst = max(worst, abs(a - b))
                }
            }
        }
        #expect(worst <= 4, "largest difference \(worst)")
        #expect(RenderFixtures.visiblePixels(frame) > 900)
    }

    @Test func theCorpusDotLottieShowsItsArchivedImage() throws {
        // animation_external_image.lottie keeps its picture in images/img_0.png; the reader embeds it.
        let renderer = LottieFrameRenderer()
        var animation = try RenderFixtures.animation("lottie/lottie-ios/DotLottie/animation_external_image.lottie")
        let withImage = try renderer.prepare(animation)
        #expect(withImage.omittedImageCount == 0)
        let shown = try renderer.render(withImage, at: .frame(0))
        animation.assets = animation.assets?.map { asset in
            guard case .image(var image) = asset else { return asset }
            image.path = "missing.png"
            image.embedded = 0
            return .image(image)
        }
        let without = try renderer.prepare(animation)
        #expect(without.omittedImageCount == 1)
        let hidden = try renderer.render(without, at: .frame(0))
        #expect(RenderFixtures.differ(shown, hidden))
    }

    @Test func filesNamedByAnAnimationAreNeverRead() throws {
        // The image exists on this machine at this path; rlottie would read it if it were asked.
        let file = RenderFixtures.root.appendingPathComponent(Self.pngPath)
        let renderer = LottieFrameRenderer()
        let external = try LottieParser().parse(Self.imageAnimation(
            path: file.lastPathComponent, directory: file.deletingLastPathComponent().path + "/"))
        let input = try renderer.prepare(external)
        #expect(input.omittedImageCount == 1)
        #expect(!String(decoding: input.json, as: UTF8.self).contains("basn6a08"))
        #expect(RenderFixtures.visiblePixels(try renderer.render(input, at: .frame(0))) == 0)
    }

    @Test func embeddedImagesPastTheLimitAreRefusedAndOthersLeftOut() throws {
        let png = try RenderFixtures.data(Self.pngPath)
        let dataURL = "data:image/png;base64," + png.base64EncodedString()
        var configuration = LottieFrameRenderer.Configuration()
        configuration.maxImagePixels = 32 * 32 - 1
        let strict = LottieFrameRenderer(configuration: configuration)
        let animation = try LottieParser().parse(Self.imageAnimation(path: dataURL, embedded: 1))
        #expect(throws: LottieRenderError.sizeTooLarge) { try strict.prepare(animation) }
        #expect(strict.renderCount == 0)
        #expect(try LottieFrameRenderer().prepare(animation).omittedImageCount == 0)
        // A payload that is not a PNG or JPEG (here GIF magic), or not base64 at all, is left out.
        for path in ["data:image/gif;base64," + Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8).base64EncodedString(), "data:image/png;base64,%%%"] {
            let other = try LottieParser().parse(Self.imageAnimation(path: path, embedded: 1))
            #expect(try LottieFrameRenderer().prepare(other).omittedImageCount == 1)
        }
    }

    @Test func aTelegramStickerRenders() throws {
        let data = try RenderFixtures.data("lottie/lottie-android/winners.tgs")
        let document = try LottieDocumentReader().read(data)
        #expect(document.format == .gzip)
        let animation = try #require(document.animations.first?.animation)
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(animation)
        let frame = try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 256))
        #expect(frame.width == 256)
        #expect(RenderFixtures.visiblePixels(frame) > 0)
        #expect(RenderFixtures.differ(frame, try renderer.render(input, at: .progress(0.5), size: LottieFrameSize(width: 256))))
    }
}
