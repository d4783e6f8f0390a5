import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

@Suite("LottieFrameRenderer: hazards")
struct HazardTests {
    static func precompositionLayer(_ id: String, index: Int? = nil) -> LottieLayer {
        var layer = LottieLayer(content: .precomposition(width: 512, height: 512, timeRemap: nil))
        layer.referenceID = id
        layer.index = index
        (layer.inPoint, layer.outPoint, layer.startTime) = (0, 60, 0)
        layer.transform = LottieTransform()   // rlottie draws no layer without `ks`
        return layer
    }

    @Test func aCycleOfParentsIsRefusedBeforeRlottie() throws {
        // parenting.json: layers ind 3 and 1 have the null layer ind 0 as parent; 0 is given 3 here.
        var animation = try RenderFixtures.animation("lottie/lottie-docs/parenting.json")
        let renderer = LottieFrameRenderer()
        _ = try renderer.render(animation, at: .frame(0), size: LottieFrameSize(width: 16))
        #expect(animation.layers?[0].index == 0 && animation.layers?[1].parent == 0 && animation.layers?[1].index == 3)
        animation.layers?[0].parent = 3
        let error = #expect(throws: LottieRenderError.unsupported) { try renderer.prepare(animation) }
        #expect(error?.message.contains("cycle") == true)
        #expect(renderer.renderCount == 1)
    }

    @Test func aCycleThroughADuplicateIndexIsFoundWhicheverDuplicateWins() throws {
        var animation = try RenderFixtures.animation("lottie/lottie-docs/parenting.json")
        // ind 0 -> parent 3; two layers have ind 3, the second one's parent is 0.
        animation.layers?[0].parent = 3
        animation.layers?[1].parent = nil
        animation.layers?[2].index = 3
        animation.layers?[2].parent = 0
        #expect(RenderHazards.find(in: animation, maxNesting: 64) != nil)
    }

    @Test func precompositionsThatContainThemselvesAreRefused() throws {
        var animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        animation.assets = [.precomposition(LottiePrecomposition(id: "loop", layers: [Self.precompositionLayer("loop")]))]
        animation.layers = [Self.precompositionLayer("loop")]
        #expect(throws: LottieRenderError.unsupported) { try LottieFrameRenderer().prepare(animation) }
    }

    @Test func nestingPastTheLimitIsRefusedAndBelowItRenders() throws {
        var animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        let solid = try #require(animation.layers?.first)
        func chain(_ depth: Int) -> [LottieAsset] {
            (0..<depth).map { level in
                let layers = level == depth - 1 ? [solid] : [Self.precompositionLayer("p\(level + 1)")]
                return .precomposition(LottiePrecomposition(id: "p\(level)", layers: layers))
            }
        }
        animation.layers = [Self.precompositionLayer("p0")]
        animation.assets = chain(65)
        let error = #expect(throws: LottieRenderError.unsupported) { try LottieFrameRenderer().prepare(animation) }
        #expect(error?.message.contains("65 deep") == true)
        animation.assets = chain(3)
        let frame = try LottieFrameRenderer().render(animation, at: .frame(0), size: LottieFrameSize(width: 8))
        #expect(frame.rgba(x: 4, y: 4) == SIMD4<UInt8>(255, 0, 0, 255))
    }
}
