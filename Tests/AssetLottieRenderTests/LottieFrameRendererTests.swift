import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

@Suite("LottieFrameRenderer")
struct LottieFrameRendererTests {
    @Test func aSolidLayerFillsTheFrameWithItsColour() throws {
        let animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        // The file's one layer: a solid of `sc` covering the whole composition.
        guard case .solid(let color?, _, _) = animation.layers?.first?.content else {
            Issue.record("layers-solid.json no longer starts with a solid layer")
            return
        }
        let hex = try #require(UInt32(color.dropFirst(), radix: 16))
        let expected = SIMD4<UInt8>(UInt8(hex >> 16), UInt8((hex >> 8) & 0xFF), UInt8(hex & 0xFF), 255)
        let renderer = LottieFrameRenderer()
        let bitmap = try renderer.render(animation, at: .frame(0))
        #expect(bitmap.width == 512 && bitmap.height == 512 && bitmap.bytesPerRow == 512 * 4)
        #expect(bitmap.pixelFormat == .rgba8)
        for (x, y) in [(0, 0), (511, 0), (0, 511), (511, 511), (256, 256), (100, 400)] {
            #expect(bitmap.rgba(x: x, y: y) == expected, "pixel (\(x), \(y))")
        }
        #expect(RenderFixtures.visiblePixels(bitmap) == 512 * 512)
        #expect(renderer.renderCount == 1)
    }

    @Test func aHalfTransparentFillComesOutAsStraightAlpha() throws {
        // fill.json: one star path filled with c = [1, 0.98, 0.28] at opacity 100; the layer's
        // opacity is set to 50 here. rlottie gives premultiplied pixels (about 128, 125, 36, 128);
        // the renderer must give the colour back with alpha 128.
        let path = "lottie/lottie-docs/fill.json"
        let opaque = try RenderFixtures.animation(path)
        var half = opaque
        let opacity = half.layers?[0].transform?.opacity
        #expect(opacity?.value == .int(100), "fill.json's layer is no longer fully opaque")
        half.layers?[0].transform?.opacity = LottieAnimatedProperty(animated: 0, value: .int(50))
        let renderer = LottieFrameRenderer()
        let colour = SIMD4<Double>(1, 0.98, 0.28, 1) * 255   // (255, 249.9, 71.4): rlottie truncates
        let inside = try renderer.render(opaque, at: .frame(0)).rgba(x: 256, y: 256)
        let faded = try renderer.render(half, at: .frame(0)).rgba(x: 256, y: 256)
        #expect(inside[3] == 255)
        #expect((126...129).contains(faded[3]), "alpha \(faded[3])")
        for channel in 0..<3 {
            #expect(abs(Double(inside[channel]) - colour[channel]) <= 1, "channel \(channel): \(inside)")
            #expect(abs(Double(faded[channel]) - colour[channel]) <= 2.5, "channel \(channel): \(faded)")
        }
    }

    @Test func framesDifferAlongAnAnimationAndProgressNamesThem() throws {
        let animation = try RenderFixtures.animation("lottie/lottie-docs/bouncy_ball.json")
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(animation)
        #expect(input.frameCount == 120)
        let first = try renderer.render(input, at: .frame(0))
        let middle = try renderer.render(input, at: .frame(30))
        #expect(RenderFixtures.differ(first, middle))
        #expect(try renderer.render(input, at: .progress(0)) == first)
        #expect(try renderer.render(input, at: .progress(1)) == renderer.render(input, at: .frame(119)))
        #expect(try LottieFrameTime.progress(0.25).frameIndex(frameCount: 121) == 30)
    }

    @Test func framesOutOfRangeAreRefusedBeforeRlottie() throws {
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-docs/bouncy_ball.json"))
        for time in [LottieFrameTime.frame(120), .frame(-1), .progress(1.01), .progress(-0.1), .progress(.nan)] {
            #expect(throws: LottieRenderError.frameOutOfRange) { try renderer.render(input, at: time) }
        }
        #expect(renderer.renderCount == 0)
    }

    @Test func sizesFollowTheAnimationOrTheCaller() throws {
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json"))
        let wide = try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 64))
        #expect(wide.width == 64 && wide.height == 64)
        let tall = try renderer.render(input, at: .frame(0), size: LottieFrameSize(height: 30))
        #expect(tall.width == 30 && tall.height == 30)
        // Both sides: the square animation is fitted inside, centred; the sides stay transparent.
        let both = try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 100, height: 50))
        #expect(both.width == 100 && both.height == 50)
        #expect(both.rgba(x: 50, y: 25) == SIMD4<UInt8>(255, 0, 0, 255))
        #expect(both.rgba(x: 2, y: 25) == SIMD4<UInt8>(0, 0, 0, 0))
        #expect(both.rgba(x: 97, y: 25) == SIMD4<UInt8>(0, 0, 0, 0))
    }

    @Test func absurdSizesAreTypedErrorsBeforeRlottie() throws {
        let renderer = LottieFrameRenderer()
        var animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        let input = try renderer.prepare(animation)
        #expect(throws: LottieRenderError.sizeTooLarge) {
            try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 100_000, height: 100_000))
        }
        #expect(throws: LottieRenderError.sizeTooLarge) {
            try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 16_000, height: 16_000))
        }
        #expect(throws: LottieRenderError.invalidSize) { try renderer.render(input, at: .frame(0), size: LottieFrameSize(width: 0)) }
        #expect(throws: LottieRenderError.invalidSize) { try renderer.render(input, at: .frame(0), size: LottieFrameSize(height: -5)) }
        for (width, error) in [(1e9, LottieRenderError.sizeTooLarge), (0, .invalidSize), (-3, .invalidSize), (.infinity, .invalidSize)] {
            animation.width = width
            #expect(throws: error) { try renderer.prepare(animation) }
        }
        // A fractional size (lottie-ios' issue_1460.json has h 58.84) is rounded: rlottie reads integers.
        animation.width = 58.84
        let rounded = try renderer.prepare(animation)
        #expect(rounded.width == 59 && String(decoding: rounded.json, as: UTF8.self).contains(#""w":59,"#))
        animation.width = 512
        animation.height = nil
        #expect(throws: LottieRenderError.invalidSize) { try renderer.prepare(animation) }
        #expect(renderer.renderCount == 0)
    }

    @Test func animationsWithoutFramesAreRefused() throws {
        let renderer = LottieFrameRenderer()
        var animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        animation.outPoint = animation.inPoint
        #expect(throws: LottieRenderError.unsupported) { try renderer.prepare(animation) }
        animation.outPoint = nil
        #expect(throws: LottieRenderError.unsupported) { try renderer.prepare(animation) }
        animation.outPoint = 1e300
        #expect(throws: LottieRenderError.unsupported) { try renderer.prepare(animation) }
    }

    @Test func theBytesAloneRenderTheSameFrameAndRlottieMustAgree() throws {
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-docs/bouncy_ball.json"))
        // What rlottie reads: integers where the model holds integral doubles (it reads w and h only as integers).
        let text = String(decoding: input.json, as: UTF8.self)
        #expect(text.contains(#""w":512"#) && !text.contains("512.0"))
        let bytesOnly = LottieRenderInput(validatedJSON: input.json, width: 512, height: 512, frameCount: 120)
        #expect(try renderer.render(bytesOnly, at: .frame(45)) == renderer.render(input, at: .frame(45)))
        // A frame count rlottie does not read is not rendered.
        let wrong = LottieRenderInput(validatedJSON: input.json, width: 512, height: 512, frameCount: 200)
        let error = #expect(throws: LottieRenderError.unsupported) { try renderer.render(wrong, at: .frame(150)) }
        #expect(error?.message.contains("120 frames") == true)
        // Bytes rlottie cannot read at all.
        let garbage = LottieRenderInput(validatedJSON: Data("{\"w\":".utf8), width: 512, height: 512, frameCount: 120)
        #expect(throws: LottieRenderError.unsupported) { try renderer.render(garbage, at: .frame(0)) }
    }

    @Test func rendersRunConcurrently() async throws {
        let renderer = LottieFrameRenderer()
        let input = try renderer.prepare(try RenderFixtures.animation("lottie/lottie-docs/bouncy_ball.json"))
        let expected = try (0..<8).map { try renderer.render(input, at: .frame($0 * 10), size: LottieFrameSize(width: 128)) }
        try await withThrowingTaskGroup(of: (Int, Bitmap).self) { group in
            for index in 0..<8 {
                group.addTask { (index, try renderer.render(input, at: .frame(index * 10), size: LottieFrameSize(width: 128))) }
            }
            for try await (index, bitmap) in group { #expect(bitmap == expected[index]) }
        }
    }
}
