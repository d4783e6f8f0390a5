import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

/// Dashes of length 0 as `prepare` writes them for rlottie: a little longer, so that the dots
/// of a dotted line are drawn. The frame is checked against ThorVG's
/// (`Fixtures/lottie/thorvg-frames`, see its README).
@Suite("LottieFrameRenderer: dashes of length 0")
struct RLottieDashTests {
    static func stroke(cap: Int?, width: JSONValue, dashes: [JSONValue]) -> JSONObject {
        var members: [(String, JSONValue)] = [("ty", .string("st"))]
        if let cap { members.append(("lc", .int(cap))) }
        members += [("w", .object(RLottieJSONTests.object([("a", .int(0)), ("k", width)]))), ("d", .array(dashes))]
        return RLottieJSONTests.object(members)
    }

    static func length(_ entry: JSONValue) -> Double? { RLottieJSON.staticNumber(entry.objectValue?["v"]) }

    @Test func aDottedLineIsDrawnAsThorVGDrawsIt() throws {
        // lottie-ios' issue_1557: a path stroked 8 wide with round caps, dashes 0 and gaps 15 (a
        // dotted line). rlottie 0.1 drew nothing (1.4% of the pixels more than 48 levels from
        // ThorVG's frame); with each dash a sixteenth of the width long, ThorVG's dots.
        let animation = try RenderFixtures.animation("lottie/lottie-ios/Issues/issue_1557.json")
        let bitmap = try LottieFrameRenderer().render(animation, at: .frame(0))
        #expect(RenderFixtures.visiblePixels(bitmap) > bitmap.width * bitmap.height / 100)
        try RenderFixtures.expectClose(bitmap, toThorVG: "issue_1557-0-261.png", far: 0.005, mean: 2)
    }

    @Test func aDashOfLengthZeroTakesItsLengthFromTheGapAfterIt() {
        let (dash, gap, offset) = (RLottieJSONTests.dash("d", 0), RLottieJSONTests.dash("g", 15), RLottieJSONTests.dash("o", 3))
        let written = RLottieJSON.strokeWithZeroDashesDrawn(Self.stroke(cap: 2, width: .int(8), dashes: [dash, gap, offset]))
        let entries = written["d"]?.arrayValue ?? []
        #expect(entries.map(Self.length) == [0.5, 14.5, 3])
        #expect(entries.map { $0.objectValue?["n"] } == [.string("d"), .string("g"), .string("o")])
        // Square caps too, and a width written as a list of one number.
        let square = RLottieJSON.strokeWithZeroDashesDrawn(Self.stroke(cap: 3, width: .array([.int(32)]), dashes: [dash, RLottieJSONTests.dash("g", 20)]))
        #expect(square["d"]?.arrayValue?.map(Self.length) == [2, 18])
    }

    @Test func otherStrokesAreKept() {
        let dashes = [RLottieJSONTests.dash("d", 0), RLottieJSONTests.dash("g", 15)]
        // Butt caps (a dash of length 0 draws nothing), no caps written, dashes that are not 0, a
        // dash of 0 without a gap (a solid line: lottie-ios' pr_1686) or with one too short to take from.
        let zero = RLottieJSONTests.dash("d", 0)
        for stroke in [Self.stroke(cap: 1, width: .int(8), dashes: dashes), Self.stroke(cap: nil, width: .int(8), dashes: dashes),
                       Self.stroke(cap: 2, width: .int(8), dashes: [RLottieJSONTests.dash("d", 4), RLottieJSONTests.dash("g", 15)]),
                       Self.stroke(cap: 2, width: .int(8), dashes: [zero, RLottieJSONTests.dash("o", 0)]),
                       Self.stroke(cap: 2, width: .int(8), dashes: [zero, RLottieJSONTests.dash("g", 0), zero])] {
            #expect(RLottieJSON.strokeWithZeroDashesDrawn(stroke) == stroke)
        }
        // An animated width: no length to take a sixteenth of.
        let keyframes: JSONValue = .array([.object(RLottieJSONTests.object([("t", .int(0)), ("s", .array([.int(8)]))]))])
        var animated = Self.stroke(cap: 2, width: .int(8), dashes: dashes)
        animated.members[2].value = .object(RLottieJSONTests.object([("a", .int(1)), ("k", keyframes)]))
        #expect(RLottieJSON.strokeWithZeroDashesDrawn(animated) == animated)
    }
}
