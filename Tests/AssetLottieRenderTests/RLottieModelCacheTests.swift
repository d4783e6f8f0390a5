import AssetCodecs
import AssetLottie
import CAssetLottieRender
import Foundation
import Testing
@testable import AssetLottieRender

/// rlottie's model cache, keyed by the JSON's bytes, and the surface rlottie clears: a frame is
/// the same whatever was rendered before it, another JSON never draws with a cached model, and a
/// buffer's old contents never reach a frame.
@Suite("LottieFrameRenderer: the model cache and the surface")
struct RLottieModelCacheTests {
    /// `input`'s JSON with `spaces` spaces after it: other bytes (so another cache entry and a
    /// parse of its own), the same animation.
    static func respaced(_ input: LottieRenderInput, _ spaces: Int) -> LottieRenderInput {
        LottieRenderInput(
            validatedJSON: input.json + Data(repeating: 0x20, count: spaces), width: input.width, height: input.height,
            frameCount: input.frameCount, rlottieFrameCount: input.rlottieFrameCount)
    }

    @Test func aFrameIsTheSameAfterOtherFramesAsWhenItIsTheFirst() throws {
        // lottie-ios' pr_2286 (1001 frames): rlottie 0.1 keeps state in an animation's render
        // tree: at 200 px wide, frames 376 to 454 drawn in turn from frame 0 on one kept tree
        // differ from the same frames drawn first on a new one. Every frame here is drawn after the frames before it, and
        // compared with the frame drawn first on JSON of other bytes (its own parse and tree).
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-ios/Issues/pr_2286.json"))
        let size = LottieFrameSize(width: 200)
        var inTurn: [Int: Bitmap] = [:]
        for frame in 0..<460 {
            inTurn[frame] = try renderer.render(input, at: .frame(frame), size: size)
        }
        for (index, frame) in stride(from: 376, through: 454, by: 6).enumerated() {
            let first = try renderer.render(Self.respaced(input, index + 1), at: .frame(frame), size: size)
            #expect(!RenderFixtures.differ(try #require(inTurn[frame]), first), "frame \(frame)")
        }
        #expect(RenderFixtures.visiblePixels(try #require(inTurn[400])) > 0)
    }

    @Test func anotherJSONIsNeverDrawnWithACachedModel() throws {
        // bouncy_ball's ball (fill 0.71, 0.192, 0.278), once as written and once with its red at
        // 0.11: one byte apart. A cache keyed by anything less than the bytes would draw the
        // second with the first's model.
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-docs/bouncy_ball.json"))
        let text = try #require(String(data: input.json, encoding: .utf8))
        let red = try #require(text.range(of: "0.71,"))
        let other = LottieRenderInput(
            validatedJSON: Data(text.replacingCharacters(in: red, with: "0.11,").utf8), width: input.width,
            height: input.height, frameCount: input.frameCount, rlottieFrameCount: input.rlottieFrameCount)
        #expect(other.json.count == input.json.count)
        let first = try renderer.render(input, at: .frame(10))
        let second = try renderer.render(other, at: .frame(10))
        let again = try renderer.render(input, at: .frame(10))
        #expect(RenderFixtures.differ(first, second))
        #expect(!RenderFixtures.differ(first, again))
    }

    @Test func rlottieClearsTheSurfaceBeforeItDraws() throws {
        // The renderer hands rlottie memory it has not zeroed. A buffer full of 0xAB and a zeroed
        // one give the same frame, on drawings with clear and half-transparent pixels.
        for path in ["lottie/lottie-docs/bouncy_ball.json", "lottie/lottie-docs/precomp/star-splosion.json", "lottie/lottie-ios/TwitterHeart.json"] {
            let input = try LottieFrameRenderer().prepare(try RenderFixtures.animation(path))
            let width = 120, height = max(1, (120 * input.height + input.width / 2) / input.width)
            func render(filling byte: UInt8) -> (Int32, [UInt8]) {
                var expected = alr_facts(width: input.width, height: input.height, frame_count: input.rlottieFrameCount)
                var read = alr_facts()
                var pixels = [UInt8](repeating: byte, count: width * height * 4)
                let status = input.json.withUnsafeBytes { json in
                    pixels.withUnsafeMutableBytes { buffer in
                        alr_render_rgba(
                            json.baseAddress?.assumingMemoryBound(to: CChar.self), json.count, &expected, input.frameCount / 2,
                            buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), width, height, buffer.count, &read, nil)
                    }
                }
                return (status, pixels)
            }
            let garbage = render(filling: 0xAB), zeroed = render(filling: 0)
            #expect(garbage.0 == Int32(ALR_OK.rawValue) && zeroed.0 == Int32(ALR_OK.rawValue), "\(path)")
            let same = garbage.1 == zeroed.1
            let seeThrough = stride(from: 3, to: zeroed.1.count, by: 4).contains { zeroed.1[$0] < 255 }
            #expect(same, "\(path)")
            #expect(seeThrough, "\(path): some pixel is not opaque, so garbage under it would show")
        }
    }
}
