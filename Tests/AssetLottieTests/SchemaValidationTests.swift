import Foundation
import Testing
@testable import AssetLottie

/// The schema's own checks, each at its path: a flag that is neither 0 nor 1, a layer type without its
/// members, a value outside an enumeration, a shape without a required member, patterns, ranges; deep
/// nesting; the bound on problems; and that every definition of the schema file was compiled.
struct SchemaValidationTests {
    /// A conforming animation whose one shape layer holds `shapes` and, after its required members, `layer`.
    static func animation(shapes: String = "[]", layer: String = "") -> String {
        #"""
        {"v":"5.7.4","fr":30,"ip":0,"op":60,"w":100,"h":100,
         "layers":[{"ty":4,"ind":1,"ip":0,"op":60,"st":0,
                    "ks":{"a":{"a":0,"k":[0,0]},"p":{"a":0,"k":[50,50]},"s":{"a":0,"k":[100,100]},
                          "r":{"a":0,"k":0},"o":{"a":0,"k":100}},
                    "shapes":\#(shapes)\#(layer)}]}
        """#
    }

    static let fill = #"{"ty":"fl","o":{"a":0,"k":100},"c":{"a":0,"k":[1,0,0]}}"#
    static let ellipse = #"{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[10,10]}}"#

    /// The problems strict parsing throws (none when it succeeds).
    func strictProblems(_ text: String, configuration: LottieParser.Configuration = .strict) -> [LottieProblem] {
        do {
            _ = try LottieParser(configuration: configuration).parse(Array(text.utf8))
            return []
        } catch {
            return error.problems
        }
    }

    @Test func theBaseAnimationConforms() {
        #expect(strictProblems(Self.animation()).isEmpty)
        #expect(strictProblems(Self.animation(shapes: "[\(Self.ellipse),\(Self.fill)]")).isEmpty)
    }

    @Test func anAnimatedFlagMustBeZeroOrOne() {
        let text = Self.animation().replacingOccurrences(of: #""a":{"a":0,"k":[0,0]}"#, with: #""a":{"a":2,"k":[0,0]}"#)
        let problems = strictProblems(text)
        #expect(problems.map(\.path) == ["$.layers[0].ks.a.a"])
        #expect(problems.first?.message == "must be one of 0, 1 (found 2)")
        // Lenient parsing still reads it.
        #expect(throws: Never.self) { try LottieParser().parse(Array(text.utf8)) }
    }

    @Test func aLayerTypeNeedsItsOwnMembers() {
        // ty 1 is a solid layer: sw, sh and sc are required; the shape layer's `shapes` does not help.
        let text = Self.animation().replacingOccurrences(of: #""ty":4"#, with: #""ty":1"#)
        #expect(strictProblems(text).map(\.path) == ["$.layers[0].sw", "$.layers[0].sh", "$.layers[0].sc"])
        let solid = Self.animation().replacingOccurrences(of: #""ty":4"#, with: ##""ty":1,"sw":10,"sh":10,"sc":"#12345""##)
        let problems = strictProblems(solid)
        #expect(problems.map(\.path) == ["$.layers[0].sc"])
        #expect(problems.first?.message.hasPrefix("must match ^#([a-fA-F0-9]{6})$") == true)
        // A shape layer without shapes.
        let noShapes = Self.animation().replacingOccurrences(of: #""shapes":[]"#, with: #""tt":0"#)
        #expect(strictProblems(noShapes).map(\.path) == ["$.layers[0].shapes"])
    }

    @Test func layerTypesOutsideTheSpecAreUnknownLayers() {
        // The schema's unknown-layer admits any other `ty` (the spec's valid/unknown-layer.json has 137).
        let unknown = Self.animation().replacingOccurrences(of: #""ty":4"#, with: #""ty":7"#)
        #expect(strictProblems(unknown).isEmpty)
        // A `ty` that is not an integer passes the schema (it is not one of 0...4) but not our own check.
        let text = Self.animation().replacingOccurrences(of: #""ty":4"#, with: #""ty":"4""#)
        #expect(strictProblems(text).map(\.path) == ["$.layers[0].ty"])
    }

    @Test func enumerationsAreEnforced() {
        let matte = Self.animation(layer: #","tt":9"#)
        let problems = strictProblems(matte)
        #expect(problems.map(\.path) == ["$.layers[0].tt"])
        #expect(problems.first?.message.hasPrefix("9 matches none of: 0 (Normal), 1 (Alpha), 2 (") == true)
        let lineCap = #"{"ty":"st","o":{"a":0,"k":100},"c":{"a":0,"k":[1,0,0]},"w":{"a":0,"k":2},"lc":7}"#
        #expect(strictProblems(Self.animation(shapes: "[\(lineCap)]")).map(\.path) == ["$.layers[0].shapes[0].lc"])
    }

    @Test func aShapeWithoutARequiredMemberIsNamed() {
        let noColor = #"{"ty":"fl","o":{"a":0,"k":100}}"#
        let group = #"{"ty":"gr","it":[\#(Self.ellipse),\#(noColor)]}"#
        let problems = strictProblems(Self.animation(shapes: "[\(group)]"))
        #expect(problems.map(\.path) == ["$.layers[0].shapes[0].it[1].c"])
        #expect(problems.first?.message == "required property is missing")
        // An unknown shape type is allowed (the spec's unknown-shape), whatever it holds.
        #expect(strictProblems(Self.animation(shapes: #"[{"ty":"zz","it":7}]"#)).isEmpty)
    }

    @Test func typesRangesAndSizesAreEnforced() {
        let brightRed = Self.fill.replacingOccurrences(of: "[1,0,0]", with: "[1.5,0,0]")
        let problems = strictProblems(Self.animation(shapes: "[\(brightRed)]"))
        #expect(problems.map(\.path) == ["$.layers[0].shapes[0].c.k[0]"])
        #expect(problems.first?.message == "must be <= 1 (found 1.5)")
        let shortColor = Self.fill.replacingOccurrences(of: "[1,0,0]", with: "[1,0]")
        #expect(strictProblems(Self.animation(shapes: "[\(shortColor)]")).map(\.path) == ["$.layers[0].shapes[0].c.k"])
        // `ip` must be a number, `hd` a boolean, `nm` a string; 100.0 is an integer.
        let text = Self.animation(layer: #","hd":1,"nm":5"#)
            .replacingOccurrences(of: #""w":100"#, with: #""w":100.0"#)
            .replacingOccurrences(of: #""ip":0,"op":60,"st""#, with: #""ip":"0","op":60,"st""#)
        #expect(Set(strictProblems(text).map(\.path)) == ["$.layers[0].ip", "$.layers[0].hd", "$.layers[0].nm"])
    }

    @Test func dataURLPatternIsAnchoredAndLinear() throws {
        let dataURL = try #require(LottieSchema.patterns.first { $0.source.hasPrefix("^data:") })
        #expect(dataURL.matches("data:image/png;base64,iVBORw0KGgo="))
        #expect(dataURL.matches("data:image/svg+xml,<svg/>") == false)  // `+` is not in [\w/]
        #expect(dataURL.matches("data:image/png;base64") == false)
        #expect(dataURL.matches("data:image/png;base64,") == false)
        #expect(dataURL.matches("data:image/png;base64,abc\n") == false)
        #expect(dataURL.matches("xdata:image/png,abc") == false)
        #expect(dataURL.matches("data:image/png,é中"))
        let big = "data:image/png;base64," + String(repeating: "A", count: 4 << 20)
        #expect(dataURL.matches(big))
    }

    @Test func deepNestingIsCheckedIteratively() throws {
        // 900 groups inside each other (1,800 JSON levels), the innermost with a fill missing its colour.
        let depth = 900
        var shapes = #"[{"ty":"fl","o":{"a":0,"k":100}}]"#
        for _ in 0..<depth { shapes = #"[{"ty":"gr","it":\#(shapes)}]"# }
        var configuration = LottieParser.Configuration.strict
        configuration.maxDepth = 2_000
        let problems = strictProblems(Self.animation(shapes: shapes), configuration: configuration)
        let expected = "$.layers[0].shapes[0]" + String(repeating: ".it[0]", count: depth) + ".c"
        #expect(problems.map(\.path) == [expected])
    }

    @Test func problemsAreBounded() throws {
        let noColor = #"{"ty":"fl","o":{"a":0,"k":100}}"#
        let text = Self.animation(shapes: "[" + Array(repeating: noColor, count: 3_000).joined(separator: ",") + "]")
        let problems = strictProblems(text)
        #expect(problems.count == 1_001)
        #expect(problems.last?.path == "$")
        #expect(problems.last?.message.contains("more problems") == true)
        #expect(problems.dropLast().allSatisfy { $0.message == "required property is missing" })
        var validator = LottieValidator()
        validator.maxProblems = 10
        let animation = try LottieParser().parse(Array(text.utf8))
        #expect(validator.validate(animation).count == 11)
    }

    @Test func localNodesOnlyReachLocalNodes() {
        // What the generator marks local is checked in place, recursively: everything it reaches must be
        // local too, and the recursive structures must not be.
        let nodes = LottieSchema.nodes
        for (index, node) in nodes.enumerated() where node.isLocal {
            #expect(node.ops.allSatisfy { $0.runsInPlace(nodes) }, "node \(index) (\(node.label))")
        }
        for label in ["layers/all-layers", "shapes/all-graphic-elements", "shapes/group", "assets/all-assets"] {
            #expect(nodes.first { $0.label == label }?.isLocal == false, "\(label)")
        }
        let compiled = CompiledSchema.shared
        #expect(compiled.opStart.count == nodes.count + 1)
        #expect(compiled.isLocal == nodes.map(\.isLocal))
    }

    @Test func everyDefinitionOfTheSchemaFileIsCompiled() throws {
        let url = Fixtures.root.appendingPathComponent("lottie-spec-schema/lottie.schema.json")
        let schema = try LottieParser().parseJSON([UInt8](try Data(contentsOf: url)))
        let definitions = try #require(schema.objectValue?["$defs"]?.objectValue)
        var names: [String] = []
        for category in definitions.members {
            for definition in category.value.objectValue?.members ?? [] { names.append("\(category.key)/\(definition.key)") }
        }
        #expect(names.count > 60)
        let labels = Set(LottieSchema.nodes.map(\.label))
        #expect(names.filter { !labels.contains($0) } == [])
        #expect(LottieSchema.nodes[LottieSchema.rootNode].label == "composition/animation")
    }
}
