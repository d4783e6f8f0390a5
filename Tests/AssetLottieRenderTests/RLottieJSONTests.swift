import AssetCodecs
import AssetLottie
import Foundation
import Testing
@testable import AssetLottieRender

/// The JSON `prepare` writes for rlottie: spelled so that rlottie reads what Lottie means.
@Suite("LottieFrameRenderer: what rlottie reads")
struct RLottieJSONTests {
    /// The JSON rlottie gets for the fixture at `relative`, parsed back.
    static func written(_ relative: String, renderer: LottieFrameRenderer = LottieFrameRenderer()) throws -> JSONValue {
        let input = try renderer.prepare(try RenderFixtures.animation(relative))
        return try LottieParser().parseJSON([UInt8](input.json))
    }

    /// Every object of `value`, depth first (the fixtures here are shallow).
    static func objects(in value: JSONValue) -> [JSONObject] {
        switch value {
        case .object(let object): return [object] + object.members.flatMap { objects(in: $0.value) }
        case .array(let elements): return elements.flatMap { objects(in: $0) }
        default: return []
        }
    }

    static func object(_ members: [(String, JSONValue)]) -> JSONObject {
        JSONObject(members: members.map { JSONObject.Member(key: $0.0, value: $0.1) })
    }

    static func dash(_ name: String, _ length: Int) -> JSONValue {
        .object(object([("n", .string(name)), ("v", .object(object([("a", .int(0)), ("k", .int(length))])))]))
    }

    // MARK: layers' ddd

    /// Ink (alpha above 0) in each of the eight 45-degree sectors around the frame's centre,
    /// within `radii`: sector k is centred on the direction k x 45 degrees.
    static func inkBySector(_ bitmap: Bitmap, radii: ClosedRange<Double>) -> [Int] {
        var counts = [Int](repeating: 0, count: 8)
        let (cx, cy) = (Double(bitmap.width) / 2, Double(bitmap.height) / 2)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.rgba(x: x, y: y)[3] != 0 {
                let (dx, dy) = (Double(x) + 0.5 - cx, Double(y) + 0.5 - cy)
                guard radii.contains((dx * dx + dy * dy).squareRoot()) else { continue }
                let degrees = (atan2(dy, dx) * 180 / .pi + 360 + 22.5).truncatingRemainder(dividingBy: 360)
                counts[Int(degrees / 45) % 8] += 1
            }
        }
        return counts
    }

    @Test(arguments: ["precomp/star-circle.json", "precomp/star-splosion.json"])
    func eightRotatedCopiesOfTheStarAreDrawn(file: String) throws {
        // Eight precomposition layers of one star, anchored and placed at the centre, rotated
        // 0, 45, ..., 315 degrees (`r`, no `ddd`). At frame 30 the star sits 181 pixels from the
        // centre (radius 80), so the frame has an eight-fold symmetry: each sector around the
        // centre holds the same ink. Read as 3D, the rotations are dropped and the eight copies
        // fall on one star, leaving five sectors empty.
        let bitmap = try LottieFrameRenderer().render(try RenderFixtures.animation("lottie/lottie-docs/\(file)"), at: .frame(30))
        let sectors = Self.inkBySector(bitmap, radii: 100...262)
        let mean = Double(sectors.reduce(0, +)) / 8
        #expect(mean > 2_000, "\(sectors)")
        for (index, count) in sectors.enumerated() {
            #expect(abs(Double(count) - mean) < mean * 0.1, "sector \(index): \(sectors)")
        }
    }

    @Test func everyLayerHasItsThreeDFlagBeforeItsTransform() throws {
        var animation = try RenderFixtures.animation("lottie/lottie-docs/layers-solid.json")
        var layer = try #require(animation.layers?.first)
        layer.threeD = nil
        var threeD = layer
        threeD.threeD = 1
        var boolean = layer
        boolean.extra.append("ddd", .bool(true))
        animation.layers = [layer, threeD, boolean]
        animation.assets = [.precomposition(LottiePrecomposition(id: "p", layers: [layer]))]
        // The model writes `ddd` after `ks`; rlottie must read it before.
        let modelKeys = try #require(animation.json.objectValue?["layers"]?.arrayValue?[1].objectValue?.members.map(\.key))
        let (modelDDD, modelKS) = (try #require(modelKeys.firstIndex(of: "ddd")), try #require(modelKeys.firstIndex(of: "ks")))
        #expect(modelDDD > modelKS)

        let input = try LottieFrameRenderer().prepare(animation)
        let written = try LottieParser().parseJSON([UInt8](input.json))
        let layers = try #require(written.objectValue?["layers"]?.arrayValue?.compactMap { $0.objectValue })
        let nested = try #require(written.objectValue?["assets"]?.arrayValue?.first?.objectValue?["layers"]?.arrayValue?.compactMap { $0.objectValue })
        for (index, (written, flag)) in zip(layers + nested, [0, 1, 1, 0]).enumerated() {
            let keys = written.members.map(\.key)
            #expect(keys.filter { $0 == "ddd" }.count == 1, "layer \(index): \(keys)")
            #expect(written["ddd"] == .int(flag), "layer \(index)")
            let ddd = try #require(keys.firstIndex(of: "ddd"))
            let ks = try #require(keys.firstIndex(of: "ks"))
            #expect(ddd + 1 == ks, "layer \(index): \(keys)")
        }
    }

    @Test func aTwoDimensionalLayerWithThreeDimensionalRotationsIsWrittenAsThreeD() throws {
        // lottie-ios' pr_1930_all_axis.json: a 2D image layer (`ddd` 0) turned by `rx`, `ry`
        // and `rz`, which rlottie reads only on a 3D layer (with `ddd` 0 first it fails to load
        // the file; with `rz` alone it draws nothing).
        let written = try Self.written("lottie/lottie-ios/Issues/pr_1930_all_axis.json")
        let layer = try #require(written.objectValue?["layers"]?.arrayValue?.first?.objectValue)
        #expect(layer["ddd"] == .int(1))
        for axis in ["all_axis", "rz"] {
            let animation = try RenderFixtures.animation("lottie/lottie-ios/Issues/pr_1930_\(axis).json")
            let bitmap = try LottieFrameRenderer().render(animation, at: .frame(0))
            #expect(RenderFixtures.visiblePixels(bitmap) > bitmap.width * bitmap.height / 4, "\(axis)")
        }
    }

    // MARK: dash arrays

    @Test func aDashArrayWithItsOffsetFirstIsWrittenWithItLast() throws {
        // stroke.json (Glaxnimate): d = [offset 0, dash 100, gap 0]. rlottie took the offset
        // as the first dash length, 0, and drew nothing.
        let written = try Self.written("lottie/lottie-docs/stroke.json")
        let strokes = Self.objects(in: written).filter { $0["ty"] == .string("st") }
        let names = strokes.first?["d"]?.arrayValue?.compactMap { $0.objectValue?["n"]?.stringValue }
        #expect(strokes.count == 1 && names == ["d", "g", "o"])
        let bitmap = try LottieFrameRenderer().render(try RenderFixtures.animation("lottie/lottie-docs/stroke.json"), at: .frame(0))
        // python-lottie draws 10.3% of this frame: a 20-pixel outline of a 200-pixel star.
        #expect(RenderFixtures.visiblePixels(bitmap) > 512 * 512 / 20)
    }

    @Test func dashArraysEndWithOneOffset() {
        let (dash, gap, offset) = (Self.dash("d", 10), Self.dash("g", 5), Self.dash("o", 3))
        let zero = RLottieJSON.zeroOffset
        #expect(RLottieJSON.dashesWithOffsetLast([offset, dash, gap]) == [dash, gap, offset])
        #expect(RLottieJSON.dashesWithOffsetLast([dash, offset, gap]) == [dash, gap, offset])
        #expect(RLottieJSON.dashesWithOffsetLast([dash, gap, offset]) == [dash, gap, offset])
        // Two offsets: the last one counts, as in players that read `n`.
        #expect(RLottieJSON.dashesWithOffsetLast([Self.dash("o", 7), dash, offset]) == [dash, offset])
        // No offset: rlottie would take the gap for one; a zero offset is what Lottie means.
        #expect(RLottieJSON.dashesWithOffsetLast([dash, gap]) == [dash, gap, zero])
        #expect(RLottieJSON.dashesWithOffsetLast([dash]) == [dash, zero])
        // Nothing to reorder: an offset alone, an empty array, entries without values.
        #expect(RLottieJSON.dashesWithOffsetLast([offset]) == [offset])
        #expect(RLottieJSON.dashesWithOffsetLast([]) == [])
        #expect(RLottieJSON.dashesWithOffsetLast([.int(1)]) == [.int(1)])
        #expect(zero.objectValue?["v"]?.objectValue?["k"] == .int(0))
    }

    // MARK: repeated keys

    @Test func repeatedKeysKeepTheLastValueAtTheFirstPosition() {
        let shape = Self.object([("ty", .string("el")), ("nm", .string("Ellipse")), ("p", .int(1)),
                                 ("ty", .string("sh")), ("nm", .string("Path"))])
        let kept = RLottieJSON.lastValues(of: shape)
        #expect(kept.members.map(\.key) == ["ty", "nm", "p"])
        #expect(kept["ty"] == .string("sh") && kept["nm"] == .string("Path") && kept["p"] == .int(1))
        let unique = Self.object([("a", .int(1)), ("b", .int(2))])
        #expect(RLottieJSON.lastValues(of: unique) == unique)
    }

    @Test(arguments: ["leak-duplicate-nm.json", "leak-duplicate-nm-path.json"])
    func noObjectRlottieReadsRepeatsAKey(file: String) throws {
        // Each has a shape item with `nm` (and more) twice, which rlottie copies twice and leaks.
        let source = try LottieParser().parseJSON([UInt8](try RenderFixtures.data("lottie/crashers/\(file)")))
        let repeated = Self.objects(in: source).filter(\.hasDuplicateKeys)
        #expect(!repeated.isEmpty)
        let written = try Self.written("lottie/crashers/\(file)")
        #expect(Self.objects(in: written).allSatisfy { !$0.hasDuplicateKeys })
        // The last name wins, as in the model: leak-duplicate-nm.json names its gradient fill
        // "Gradient Fill 1", then "Transform".
        if file == "leak-duplicate-nm.json" {
            let fills = Self.objects(in: written).filter { $0["ty"] == .string("gf") }
            #expect(fills.count == 1 && fills.first?["nm"] == .string("Transform"))
        }
    }

    // MARK: path coordinates

    /// `value` with every number equal to `old` replaced by `new`.
    static func replacing(_ old: Double, with new: Double, in value: JSONValue) -> JSONValue {
        switch value {
        case .int, .double: return value.doubleValue == old ? .double(new) : value
        case .array(let elements): return .array(elements.map { replacing(old, with: new, in: $0) })
        case .object(let object):
            return .object(JSONObject(members: object.members.map { .init(key: $0.key, value: replacing(old, with: new, in: $0.value)) }))
        default: return value
        }
    }

    @Test func aVertexPastTheBoundIsRefusedAndOneAtItRendersWithinASecond() throws {
        // libFuzzer moved one mask vertex of a solid layer scaled 2135% from x = 249.413 to
        // 2,490,000,000.413; rlottie took 136 s to draw frame 0.
        let animation = try RenderFixtures.animation("lottie/crashers/slow-mask-vertex-2e9.json")
        let renderer = LottieFrameRenderer()
        let error = #expect(throws: LottieRenderError.unsupported) { try renderer.prepare(animation) }
        #expect(error?.message.hasPrefix("$.assets[0].layers[3].masksProperties[0].pt.k.v:") == true, "\(error?.message ?? "")")
        #expect(renderer.renderCount == 0)

        // The same file with that vertex at the bound (178 times the largest coordinate of our
        // corpus) renders frame 0 at its own size within a second.
        let limit = renderer.configuration.maxPathCoordinate
        let atLimit = try LottieAnimation(json: Self.replacing(2_490_000_000.413, with: limit, in: animation.json))
        #expect(atLimit != animation)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try renderer.render(atLimit, at: .frame(0))
        #expect(clock.now - start < .seconds(1))
        // The bound is the configuration's.
        var tighter = LottieFrameRenderer.Configuration()
        tighter.maxPathCoordinate = limit - 1
        #expect(throws: LottieRenderError.unsupported) { try LottieFrameRenderer(configuration: tighter).prepare(atLimit) }
    }

    @Test func tangentsAndKeyframedPathsAreBoundedToo() throws {
        func path(_ vertex: Double, _ tangent: Double) -> JSONValue {
            let point = { (x: Double) in JSONValue.array([.double(x), .int(0)]) }
            return .object(Self.object([("i", .array([point(tangent)])), ("o", .array([point(0)])),
                                        ("v", .array([point(vertex)])), ("c", .bool(true))]))
        }
        let animated = JSONValue.object(Self.object([("a", .int(1)), ("k", .array([
            .object(Self.object([("t", .int(0)), ("s", .array([path(10, 10)]))])),
            .object(Self.object([("t", .int(30)), ("s", .array([path(10, -2e6)]))])),
        ]))]))
        let shape = JSONValue.object(Self.object([("ty", .string("sh")), ("ks", animated)]))
        #expect(throws: LottieRenderError.unsupported) {
            try RLottieJSON.rewrite(.array([shape]), maxPathCoordinate: 1e6)
        }
        #expect(try RLottieJSON.rewrite(.array([shape]), maxPathCoordinate: 3e6) == .array([shape]))
    }

    // MARK: everything else

    @Test func otherwiseTheBytesAreThoseOfTheModel() throws {
        // bouncy_ball.json and gradient-stroke.json have no repeated key, dash arrays in order
        // and no coordinate near the bound: only each layer's `ddd` moves before its `ks`.
        for file in ["bouncy_ball.json", "gradient-stroke.json"] {
            let animation = try RenderFixtures.animation("lottie/lottie-docs/\(file)")
            let input = try LottieFrameRenderer().prepare(animation)
            let expected = JSONWriter(integralNumbersAsIntegers: true).write(RLottieJSON.layersWithThreeDFlagFirst(animation.json))
            #expect([UInt8](input.json) == expected, "\(file)")
            #expect(JSONWriter(integralNumbersAsIntegers: true).write(animation.json) != expected, "\(file)")
        }
    }
}
