import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

/// Shape items as `prepare` writes them for rlottie: `ty` first, a star's rotation halved. The
/// frames are checked against ThorVG's (`Fixtures/lottie/thorvg-frames`, see its README).
@Suite("LottieFrameRenderer: shape items rlottie misreads")
struct RLottieShapeTests {
    /// How far `bitmap` is from `reference` (one size), both composited over white, on BT.601
    /// luma: the mean absolute difference in levels, and the fraction of pixels more than 48
    /// levels apart (an edge drawn a little otherwise is less; a shape turned otherwise is more).
    static func lumaDifference(_ bitmap: Bitmap, _ reference: Bitmap) -> (mean: Double, far: Double) {
        func luma(_ pixel: SIMD4<UInt8>) -> Double {
            let alpha = Double(pixel[3]) / 255
            let (r, g, b) = (Double(pixel[0]) * alpha + 255 * (1 - alpha), Double(pixel[1]) * alpha + 255 * (1 - alpha),
                             Double(pixel[2]) * alpha + 255 * (1 - alpha))
            return 0.299 * r + 0.587 * g + 0.114 * b
        }
        var (total, far) = (0.0, 0)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let difference = abs(luma(bitmap.rgba(x: x, y: y)) - luma(reference.rgba(x: x, y: y)))
                total += difference
                if difference > 48 { far += 1 }
            }
        }
        let count = Double(bitmap.width * bitmap.height)
        return (total / count, Double(far) / count)
    }

    /// Every shape item (an object of a `shapes` or `it` list) of `value`.
    static func shapeItems(in value: JSONValue, inList: Bool = false) -> [JSONObject] {
        switch value {
        case .object(let object):
            let own = inList ? [object] : []
            return own + object.members.flatMap { shapeItems(in: $0.value, inList: ["shapes", "it"].contains($0.key)) }
        case .array(let elements):
            return elements.flatMap { shapeItems(in: $0, inList: inList) }
        default:
            return []
        }
    }

    /// `value` with the members of every shape item in reverse order (`ty` last).
    static func reversingShapeItems(_ value: JSONValue, inList: Bool = false) -> JSONValue {
        switch value {
        case .object(let object):
            var members = object.members.map {
                JSONObject.Member(key: $0.key, value: reversingShapeItems($0.value, inList: ["shapes", "it"].contains($0.key)))
            }
            if inList { members.reverse() }
            return .object(JSONObject(members: members))
        case .array(let elements):
            return .array(elements.map { reversingShapeItems($0, inList: inList) })
        default:
            return value
        }
    }

    // MARK: stars and polygons

    @Test func aStarIsTurnedByItsRotationOnceAsThorVGDrawsIt() throws {
        // lottie-docs' star-circle: eight copies of a five-point star with `r` -45 around a
        // circle, and an eight-point polygon. rlottie 0.1 alone turns both by twice `r` (17% of
        // the pixels more than 48 levels from ThorVG's frame); written with `r` halved, it draws
        // ThorVG's frame to within antialiasing.
        let animation = try RenderFixtures.animation("lottie/lottie-docs/precomp/star-circle.json")
        let bitmap = try LottieFrameRenderer().render(animation, at: .frame(30), size: LottieFrameSize(width: 256))
        try RenderFixtures.expectClose(bitmap, toThorVG: "star-circle-30-256.png", far: 0.005, mean: 2)
    }

    @Test func aStarsRotationIsWrittenHalved() throws {
        let written = try RLottieJSONTests.written("lottie/lottie-docs/precomp/star-circle.json")
        let stars = Self.shapeItems(in: written).filter { $0["ty"] == .string("sr") }
        #expect(!stars.isEmpty)
        for star in stars {
            #expect(star["r"]?.objectValue?["k"]?.doubleValue == -22.5)
        }
    }

    @Test func everyValueOfAnAnimatedRotationIsHalved() {
        let keyframes: JSONValue = .array([
            .object(RLottieJSONTests.object([("t", .int(0)), ("s", .array([.int(90)])), ("e", .array([.double(45.5)]))])),
            .object(RLottieJSONTests.object([("t", .int(30)), ("s", .int(-7))])),
        ])
        let star = RLottieJSONTests.object([
            ("ty", .string("sr")), ("r", .object(RLottieJSONTests.object([("a", .int(1)), ("k", keyframes)]))),
        ])
        let halved = RLottieJSON.starWithRotationHalved(star)
        let frames = halved["r"]?.objectValue?["k"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(frames.count == 2)
        #expect(frames.first?["s"] == .array([.int(45)]))
        #expect(frames.first?["e"] == .array([.double(22.75)]))
        #expect(frames.last?["s"] == .double(-3.5))
        #expect(frames.first?["t"] == .int(0))
        // Static values, and other items with an `r` (a rectangle's roundness), as they should be.
        let polygon = RLottieJSONTests.object([("ty", .string("sr")), ("r", .object(RLottieJSONTests.object([("a", .int(0)), ("k", .array([.int(30)]))])))])
        #expect(RLottieJSON.starWithRotationHalved(polygon)["r"]?.objectValue?["k"] == .array([.int(15)]))
        let rectangle = RLottieJSONTests.object([("ty", .string("rc")), ("r", .object(RLottieJSONTests.object([("a", .int(0)), ("k", .int(30))])))])
        #expect(RLottieJSON.starWithRotationHalved(rectangle) == rectangle)
    }

    // MARK: masks of mode n

    @Test func aLayerUnderAMaskOfModeNIsDrawnAsThorVGDrawsIt() throws {
        // lottie-ios' issue_1603: a stroked rectangle in a layer with one mask of mode `n`
        // (none), which does nothing. rlottie 0.1 drew nothing at all (26% of the pixels more
        // than 48 levels from ThorVG's frame); with the mask dropped, ThorVG's frame.
        let animation = try RenderFixtures.animation("lottie/lottie-ios/Issues/issue_1603.json")
        let written = try RLottieJSONTests.written("lottie/lottie-ios/Issues/issue_1603.json")
        let objects = RLottieJSONTests.objects(in: written)
        #expect(objects.allSatisfy { $0["masksProperties"] == nil })
        #expect(objects.first { $0["nm"] == .string("Shape Layer 4") }?["hasMask"] == .bool(false))
        let bitmap = try LottieFrameRenderer().render(animation, at: .frame(16), size: LottieFrameSize(width: 160))
        try RenderFixtures.expectClose(bitmap, toThorVG: "issue_1603-16-160.png", far: 0.005, mean: 2)
    }

    @Test func onlyTheMasksOfModeNAreDropped() {
        func mask(_ mode: String) -> JSONValue { .object(RLottieJSONTests.object([("mode", .string(mode)), ("inv", .bool(false))])) }
        let layer = RLottieJSONTests.object([("ty", .int(4)), ("hasMask", .bool(true)), ("masksProperties", .array([mask("n"), mask("a"), mask("n")]))])
        let kept = RLottieJSON.layerWithoutInertMasks(layer)
        #expect(kept["masksProperties"] == .array([mask("a")]))
        #expect(kept["hasMask"] == .bool(true))
        let plain = RLottieJSONTests.object([("ty", .int(4)), ("masksProperties", .array([mask("s")]))])
        #expect(RLottieJSON.layerWithoutInertMasks(plain) == plain)
    }

    // MARK: ty first

    @Test func aShapeItemWrittenWithTyLastDrawsAsWithTyFirst() throws {
        // lottie-docs' ellipse (a group of an ellipse, a stroke and a transform) with every shape
        // item's members reversed: the same animation as JSON means it. rlottie 0.1 skips an
        // item's members until `ty`, so it drew nothing; written `ty` first, it draws the file.
        let original = try RenderFixtures.animation("lottie/lottie-docs/ellipse.json")
        let reversed = Self.reversingShapeItems(original.json)
        let reversedItems = Self.shapeItems(in: reversed)
        #expect(!reversedItems.isEmpty && reversedItems.allSatisfy { $0.members.last?.key == "ty" })
        let data = Data(JSONWriter().write(reversed))
        let animation = try #require(try LottieDocumentReader().read(data).animations.first?.animation)
        #expect(Self.shapeItems(in: animation.json).allSatisfy { $0.members.last?.key == "ty" })

        let renderer = LottieFrameRenderer()
        let written = try LottieParser().parseJSON([UInt8](try renderer.prepare(animation).json))
        let items = Self.shapeItems(in: written)
        #expect(items.count == reversedItems.count)
        #expect(items.allSatisfy { $0.members.first?.key == "ty" })

        let expected = try renderer.render(original, at: .frame(0))
        let bitmap = try renderer.render(animation, at: .frame(0))
        #expect(RenderFixtures.visiblePixels(expected) > 10_000)
        #expect(!RenderFixtures.differ(bitmap, expected))
    }

    @Test func aCorpusFileWithKeysBeforeTyIsWrittenTyFirst() throws {
        // lottie-ios' TwitterHeart writes `d` and `ind` before `ty` in its items.
        let animation = try RenderFixtures.animation("lottie/lottie-ios/TwitterHeart.json")
        let late = Self.shapeItems(in: animation.json).filter { $0.members.first?.key != "ty" }
        #expect(late.count >= 10)
        let items = Self.shapeItems(in: try RLottieJSONTests.written("lottie/lottie-ios/TwitterHeart.json"))
        #expect(items.count == Self.shapeItems(in: animation.json).count)
        #expect(items.allSatisfy { $0.members.first?.key == "ty" })
    }
}
