import Testing
@testable import AssetLottie

/// Strict validation reports every problem with its path; cycles never hang or crash.
///
/// The inputs conform to the Lottie 1.0 schema except for what each test is about (layers carry the
/// `ip`, `op` and `ks` the schema requires, image assets their `w` and `h`), so that the expected paths
/// are those of the checks under test; `SchemaValidationTests` covers the schema's own problems.
struct ValidationTests {
    func problems(_ text: String) throws -> [LottieProblem] {
        let animation = try LottieParser().parse(Array(text.utf8))
        return LottieValidator().validate(animation)
    }

    func paths(_ text: String) throws -> Set<String> {
        Set(try problems(text).map(\.path))
    }

    /// The members the schema requires of every layer.
    static let required = #""ip":0,"op":60,"ks":{}"#

    let valid = #"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[{"ty":3,"ind":1,"ip":0,"op":60,"ks":{}}]}"#

    @Test func aValidAnimationHasNoProblems() throws {
        #expect(try problems(valid).isEmpty)
        _ = try LottieParser(configuration: .strict).parse(Array(valid.utf8))
    }

    @Test func everyMissingOrWrongTopLevelFieldIsReported() throws {
        #expect(try paths("{}") == ["$.fr", "$.ip", "$.op", "$.w", "$.h", "$.layers"])
        #expect(try paths(#"{"fr":0,"ip":10,"op":10,"w":10.5,"h":-1,"layers":[]}"#) == ["$.fr", "$.op", "$.w", "$.h"])
        #expect(try paths(#"{"fr":"30","ip":0,"op":1,"w":1,"h":1,"layers":{}}"#) == ["$.fr", "$.layers"])
        let error = #expect(throws: LottieError.validationFailed) {
            try LottieParser(configuration: .strict).parse(Array("{}".utf8))
        }
        #expect(error?.problems.count == 6)
    }

    @Test func parentsMustExistAndNotCycle() throws {
        let missing = #"{"fr":30,"ip":0,"op":60,"w":1,"h":1,"layers":[{"ty":3,"ind":1,\#(Self.required)},{"ty":3,"ind":2,\#(Self.required)},{"ty":3,"ind":3,\#(Self.required)},{"ty":4,"ind":4,"parent":9,"shapes":[],\#(Self.required)}]}"#
        #expect(try paths(missing) == ["$.layers[3].parent"])
        let cycle = #"{"fr":30,"ip":0,"op":60,"w":1,"h":1,"layers":[{"ty":3,"ind":1,"parent":3,\#(Self.required)},{"ty":3,"ind":2,"parent":1,\#(Self.required)},{"ty":3,"ind":3,"parent":2,\#(Self.required)},{"ty":3,"ind":4,"parent":4,\#(Self.required)}]}"#
        let found = try problems(cycle)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0.message.contains("cycle") })
        #expect(Set(found.map(\.path)) == ["$.layers[0].parent", "$.layers[3].parent"])
    }

    @Test func precompositionReferencesResolveAndDoNotCycle() throws {
        let text = #"""
        {"fr":30,"ip":0,"op":60,"w":1,"h":1,
         "assets":[{"id":"self","layers":[{"ty":0,"refId":"self",\#(Self.required)}]},
                   {"id":"a","layers":[{"ty":0,"refId":"b",\#(Self.required)}]},
                   {"id":"b","layers":[{"ty":0,"refId":"a",\#(Self.required)},{"ty":2,"refId":"nope",\#(Self.required)}]},
                   {"id":"img","p":"x.png","u":"images/","e":0,"w":1,"h":1}],
         "layers":[{"ty":0,"refId":"self",\#(Self.required)},{"ty":0,"refId":"a",\#(Self.required)},
                   {"ty":0,"refId":"missing",\#(Self.required)},{"ty":2,"refId":"img",\#(Self.required)}]}
        """#
        let found = try problems(text)
        #expect(Set(found.map(\.path)) == [
            "$.assets[0].layers[0].refId", "$.assets[1].layers[0].refId",
            "$.assets[2].layers[1].refId", "$.layers[2].refId",
        ] || Set(found.map(\.path)) == [
            "$.assets[0].layers[0].refId", "$.assets[2].layers[0].refId",
            "$.assets[2].layers[1].refId", "$.layers[2].refId",
        ])
        #expect(found.filter { $0.message.contains("cycle") }.count == 2)
        // Leniently the same file parses, and derived facts terminate.
        let animation = try LottieParser().parse(Array(text.utf8))
        #expect(animation.usedAssetIDs == ["self", "a", "b", "img"])
        #expect(animation.totalLayerCount == 8)
    }

    @Test func keyframeTimesMustNotGoBack() throws {
        let text = #"""
        {"fr":30,"ip":0,"op":60,"w":1,"h":1,"layers":[{"ty":4,"ind":1,"ip":0,"op":60,
          "ks":{"o":{"a":1,"k":[{"t":0,"s":[0]},{"t":10,"s":[100]},{"t":5,"s":[50]}]}},
          "shapes":[{"ty":"gr","it":[{"ty":"rc","p":{"a":0,"k":[0,0]},
                                      "s":{"a":1,"k":[{"t":3,"s":[1,1]},{"t":2,"s":[2,2]}]}}]}]}]}
        """#
        #expect(try paths(text) == ["$.layers[0].ks.o.k[2].t", "$.layers[0].shapes[0].it[0].s.k[1].t"])
    }

    @Test func embeddedImagesMustBeDataURLs() throws {
        let text = #"""
        {"fr":30,"ip":0,"op":60,"w":1,"h":1,"layers":[],
         "assets":[{"id":"a","p":"plain.png","e":1,"w":1,"h":1},
                   {"id":"b","p":"data:image/png;base64,iVBORw0KGgo=","e":1,"w":1,"h":1},
                   {"id":"c","p":"data:image/png;base64","e":1,"w":1,"h":1}]}
        """#
        #expect(try paths(text) == ["$.assets[0].p", "$.assets[2].p"])
    }

    @Test func largeCyclicCompositionsStayIterative() throws {
        // 20,000 layers in one parent chain closed into a cycle, and 2,000 precompositions in a ring.
        var layers: [String] = []
        for index in 1...20_000 { layers.append(#"{"ty":3,"ind":\#(index),"parent":\#(index % 20_000 + 1),\#(Self.required)}"#) }
        var assets: [String] = []
        for index in 0..<2_000 { assets.append(#"{"id":"p\#(index)","layers":[{"ty":0,"refId":"p\#((index + 1) % 2_000)",\#(Self.required)}]}"#) }
        let text = #"{"fr":30,"ip":0,"op":60,"w":1,"h":1,"assets":[\#(assets.joined(separator: ","))],"layers":[\#(layers.joined(separator: ",")),{"ty":0,"refId":"p0",\#(Self.required)}]}"#
        let animation = try LottieParser().parse(Array(text.utf8))
        #expect(animation.usedAssetIDs.count == 2_000)
        let found = LottieValidator().validate(animation)
        #expect(found.filter { $0.message.contains("cycle") }.count == 2)
        #expect(found.count == 2, "\(found.prefix(5))")
    }
}
