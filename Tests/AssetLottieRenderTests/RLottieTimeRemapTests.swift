import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

/// Time remaps (`tm`) as `prepare` writes them for rlottie: a static one as keyframes, and the
/// composition lengthened past the latest time one names. Frames are checked against ThorVG's
/// (`Fixtures/lottie/thorvg-frames`, see its README).
@Suite("LottieFrameRenderer: time remaps")
struct RLottieTimeRemapTests {
    @Test func frozenAndReversedPrecompositionsAreDrawnAsThorVGDrawsThem() throws {
        // lottie-ios' timeremap: four layers of one precomposition (a square moving and turning).
        // "Freeze" has a static `tm` of 0.876 s, which rlottie 0.1 ignored (it drew frame 0, not
        // 21); "Reverse" starts at 2.044 s, past the 1.96 s rlottie clamped it to. 10% of the
        // pixels were more than 48 levels from ThorVG's frame; now ThorVG's frame.
        let animation = try RenderFixtures.animation("lottie/lottie-ios/timeremap.json")
        let input = try LottieFrameRenderer().prepare(animation)
        #expect(input.frameCount == 48 && input.rlottieFrameCount == 52)
        let bitmap = try LottieFrameRenderer().render(input, at: .frame(0))
        try RenderFixtures.expectClose(bitmap, toThorVG: "timeremap-0-300.png", far: 0.002, mean: 1)
    }

    @Test func aNestedRemapPastTheEndIsReached() throws {
        // lottie-ios' pr_1604_1: a precomposition remapped from 0 to 1.233 s over a 0.633 s
        // animation, holding one remapped again. rlottie 0.1 stopped at 0.617 s (14% of the
        // pixels more than 48 levels from ThorVG's frame 19, a folded bill for a ring); with the
        // composition lengthened, ThorVG's frame but for rlottie's whole frames (a fold a frame
        // apart).
        let animation = try RenderFixtures.animation("lottie/lottie-ios/Issues/pr_1604_1.json")
        let input = try LottieFrameRenderer().prepare(animation)
        #expect(input.frameCount == 38 && input.rlottieFrameCount == 76)
        let written = try LottieParser().parseJSON([UInt8](input.json))
        #expect(written.objectValue?["op"] == .int(76))
        let bitmap = try LottieFrameRenderer().render(input, at: .frame(19))
        try RenderFixtures.expectClose(bitmap, toThorVG: "pr_1604_1-19-130.png", far: 0.05, mean: 6)
        // The frames past the animation's own are not rendered, and a worker gets the count rlottie reads.
        #expect(throws: LottieRenderError.frameOutOfRange) { try LottieFrameRenderer().render(input, at: .frame(38)) }
        let request = LottieFrameJob.request(input, at: .frame(19), size: .natural)
        let reply = try LottieFrameJob.bitmap(fromReply: LottieFrameJob.handle(request))
        #expect(reply == bitmap)
    }

    @Test func aStaticRemapIsWrittenAsKeyframesOfItsValue() {
        let remap = RLottieJSONTests.object([("a", .int(0)), ("k", .double(0.876)), ("ix", .int(2))])
        let layer = RLottieJSONTests.object([("ty", .int(0)), ("refId", .string("comp_1")), ("tm", .object(remap))])
        let written = RLottieJSON.layerWithTimeRemapKeyframed(layer)
        let tm = written["tm"]?.objectValue
        #expect(tm?["a"] == .int(1) && tm?["ix"] == .int(2))
        let keyframes = tm?["k"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(keyframes.count == 2 && keyframes.allSatisfy { $0["s"] == .array([.double(0.876)]) && $0["h"] == .int(1) })
        // Keyframed remaps, and objects that are not precomposition layers, as they came.
        let keyed = RLottieJSONTests.object([("ty", .int(0)), ("refId", .string("comp_1")), ("tm", .object(tm ?? remap))])
        #expect(RLottieJSON.layerWithTimeRemapKeyframed(keyed) == keyed)
        let slider = RLottieJSONTests.object([("ty", .int(0)), ("tm", .object(remap))])
        #expect(RLottieJSON.layerWithTimeRemapKeyframed(slider) == slider)
    }

    @Test func anAnimationWithoutRemapsPastItsEndIsNotLengthened() throws {
        // pr_2286's remaps stay within its 16.7 s; bouncy_ball has none.
        for file in ["lottie-ios/Issues/pr_2286.json", "lottie-docs/bouncy_ball.json"] {
            let input = try LottieFrameRenderer().prepare(try RenderFixtures.animation("lottie/\(file)"))
            #expect(input.rlottieFrameCount == input.frameCount, "\(file)")
        }
        let text = #"{"v":"5.7.0","fr":10,"ip":0,"op":10,"w":8,"h":8,"layers":[{"ty":0,"refId":"c","ip":0,"op":10,"st":0,"tm":{"a":0,"k":1e300}}],"assets":[{"id":"c","layers":[]}]}"#
        let far = try #require(try LottieDocumentReader().read(Data(text.utf8)).animations.first?.animation)
        var renderer = LottieFrameRenderer()
        #expect(try renderer.prepare(far).rlottieFrameCount == renderer.configuration.maxFrameCount)
        var limits = LottieFrameRenderer.Configuration()
        limits.maxFrameCount = 100
        renderer = LottieFrameRenderer(configuration: limits)
        #expect(try renderer.prepare(far).rlottieFrameCount == 100)
    }
}
