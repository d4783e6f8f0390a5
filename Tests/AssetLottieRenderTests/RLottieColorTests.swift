import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

/// Colours eased past 0...1 as `prepare` writes them for rlottie: frame by frame, clamped. The
/// frame is checked against ThorVG's (`Fixtures/lottie/thorvg-frames`, see its README).
@Suite("LottieFrameRenderer: colours eased past 0...1")
struct RLottieColorTests {
    static func keyframe(_ time: Int, _ start: [Double], out: Double? = nil, into: Double? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("t", .int(time)), ("s", .array(start.map(JSONValue.double)))]
        if let out, let into {
            members.append(("o", .object(RLottieJSONTests.object([("x", .array([.double(0.167)])), ("y", .array([.double(out)]))]))))
            members.append(("i", .object(RLottieJSONTests.object([("x", .array([.double(0.704)])), ("y", .array([.double(into)]))]))))
        }
        return .object(RLottieJSONTests.object(members))
    }

    static func fill(_ keyframes: [JSONValue]) -> JSONObject {
        RLottieJSONTests.object([("ty", .string("fl")), ("c", .object(RLottieJSONTests.object([("a", .int(1)), ("k", .array(keyframes))])))])
    }

    @Test func aFillEasedPastWhiteIsDrawnAsThorVGDrawsIt() throws {
        // lottie-ios' pr_1604_2: a ring over a rectangle filled white, eased to pink with `o.y`
        // -1.543, in a precomposition remapped past the animation's end. rlottie 0.1 drew nothing
        // (the remap cut at the end); with the remap reached, a near-black rectangle (white past
        // 1 wraps to near 0); with the colour clamped, ThorVG's ring on white.
        let animation = try RenderFixtures.animation("lottie/lottie-ios/Issues/pr_1604_2.json")
        let bitmap = try LottieFrameRenderer().render(animation, at: .frame(19))
        #expect(RenderFixtures.visiblePixels(bitmap) > bitmap.width * bitmap.height / 50)
        try RenderFixtures.expectClose(bitmap, toThorVG: "pr_1604_2-19-130.png", far: 0.03, mean: 2.5)
    }

    @Test func anOvershootingSpanIsWrittenFrameByFrameClamped() throws {
        let white = [1.0, 1, 1, 1], pink = [0.98, 0.82, 0.87, 1]
        let fill = Self.fill([Self.keyframe(9, white, out: -1.543, into: 1), Self.keyframe(46, pink)])
        let written = RLottieJSON.colorWithOvershootClamped(fill)
        let list = try #require(written["c"]?.objectValue?["k"]?.arrayValue)
        let keyframes = list.compactMap(\.objectValue)
        // 9, then 10 ... 45, then 46.
        #expect(keyframes.compactMap { $0["t"]?.intValue } == Array(9...46))
        let values = keyframes.compactMap { $0["s"]?.arrayValue?.compactMap(\.doubleValue) }
        #expect(values.count == 38 && values.allSatisfy { $0.count == 4 && $0.allSatisfy { (0...1).contains($0) } })
        // Early on the easing runs below 0, so the colour past white: clamped to white.
        #expect(values[1] == white)
        #expect(values.last == pink)
        // Each keyframe is a straight line to the next one's value.
        for (keyframe, next) in zip(keyframes.dropLast(), keyframes.dropFirst()) {
            #expect(keyframe["e"] != nil && keyframe["e"] == next["s"])
            #expect(keyframe["o"]?.objectValue?["y"] == .array([.int(0)]) && keyframe["i"]?.objectValue?["y"] == .array([.int(1)]))
        }
    }

    @Test func spansWithinZeroToOneAndOtherObjectsAreKept() {
        let black = [0.0, 0, 0, 1], grey = [0.5, 0.5, 0.5, 1]
        // An easing that overshoots, between values far enough from 0 and 1 to stay within.
        let within = Self.fill([Self.keyframe(0, [0.3, 0.3, 0.3, 1], out: -0.2, into: 1.2), Self.keyframe(10, [0.6, 0.6, 0.6, 1])])
        #expect(RLottieJSON.colorWithOvershootClamped(within) == within)
        let plain = Self.fill([Self.keyframe(0, black, out: 0, into: 1), Self.keyframe(10, grey)])
        #expect(RLottieJSON.colorWithOvershootClamped(plain) == plain)
        let gradient = RLottieJSONTests.object([("ty", .string("gf")), ("c", plain["c"] ?? .null)])
        #expect(RLottieJSON.colorWithOvershootClamped(gradient) == gradient)
        // A span of more than maxClampedSpan frames.
        let long = Self.fill([Self.keyframe(0, black, out: -1, into: 1), Self.keyframe(RLottieJSON.maxClampedSpan + 1, grey)])
        #expect(RLottieJSON.colorWithOvershootClamped(long) == long)
    }

    @Test func theEasingIsTheCubicBezierOfLottie() {
        #expect(abs(RLottieJSON.easing(0.3, 0, 0, 1, 1) - 0.3) < 1e-9)
        #expect(abs(RLottieJSON.easing(0.5, 0.42, 0, 0.58, 1) - 0.5) < 1e-9)
        #expect(abs(RLottieJSON.easing(0.25, 0.167, -1.543, 0.704, 1) - -0.44777) < 1e-4)
    }
}
