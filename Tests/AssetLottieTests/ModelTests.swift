import Testing
@testable import AssetLottie

/// The typed model: layer cases, derived facts, leniency without loss.
struct ModelTests {
    @Test func layerTypesAreTypedAndUnknownTypesKept() throws {
        let text = #"""
        {"v":"5.7.4","fr":25,"ip":0,"op":50,"w":200,"h":100,"nm":"demo","ddd":0,
         "markers":[{"cm":"intro","tm":0,"dr":10}],
         "fonts":{"list":[{"fName":"Roboto","fFamily":"Roboto","fStyle":"Regular","ascent":75}]},
         "chars":[{"ch":"A","fFamily":"Roboto","style":"Regular","size":12,"w":60,"data":{}}],
         "assets":[{"id":"comp","layers":[{"ty":3,"ind":1}]},{"id":"img","w":10,"h":10,"u":"images/","p":"a.png","e":0},
                   {"id":"snd","x":1}],
         "layers":[{"ty":0,"ind":1,"refId":"comp","w":200,"h":100,"ip":0,"op":50,"st":0,"sr":1,"tt":1,"td":0},
                   {"ty":1,"ind":2,"parent":1,"sc":"#ff0000","sw":200,"sh":100,"masksProperties":[{"mode":"a"}]},
                   {"ty":2,"ind":3,"refId":"img","hd":true},
                   {"ty":3,"ind":4,"ks":{"o":{"a":0,"k":100},"p":{"a":1,"k":[{"t":0,"s":[0,0]},{"t":10,"s":[5,5]}]}}},
                   {"ty":4,"ind":5,"shapes":[{"ty":"el"}],"ef":[{"ty":5}]},
                   {"ty":5,"ind":6,"t":{"d":{"k":[]}}},
                   {"ty":13,"ind":7,"pe":{"a":0,"k":500}},
                   {"ind":8,"nm":"no type"}]}
        """#
        let animation = try LottieParser().parse(Array(text.utf8))
        let layers = try #require(animation.layers)
        #expect(layers.map(\.typeCode) == [0, 1, 2, 3, 4, 5, 13, nil])
        #expect(layers[0].content == .precomposition(width: 200, height: 100, timeRemap: nil))
        #expect(layers[0].referenceID == "comp")
        #expect(layers[0].matteMode == 1)
        #expect(layers[1].content == .solid(color: "#ff0000", width: 200, height: 100))
        #expect(layers[1].parent == 1)
        #expect(layers[1].masks?.count == 1)
        #expect(layers[2].hidden == true)
        #expect(layers[3].transform?.opacity?.value == .int(100))
        #expect(layers[3].transform?.position?.keyframeTimes == [0, 10])
        #expect(layers[4].effects?.count == 1)
        #expect(layers[6].content == .unknown(type: 13))
        #expect(layers[6].extra["pe"] != nil)
        #expect(animation.markers?.first?.comment == "intro")
        #expect(animation.fonts?.list?.first?.family == "Roboto")
        #expect(animation.characters?.first?.width == 60)
        #expect(animation.durationSeconds == 2)
        #expect(animation.layerCount == 8)
        #expect(animation.totalLayerCount == 9)
        #expect(animation.assetCount == 3)
        #expect(animation.usedAssetIDs == ["comp", "img"])
        guard case .image(let image)? = animation.asset(id: "img") else { Issue.record("no image asset"); return }
        #expect(image.source == .external(path: "images/a.png"))
        guard case .other? = animation.asset(id: "snd") else { Issue.record("sound asset not kept"); return }
        let back = try LottieParser().parseJSON(animation.encoded())
        #expect(back.isEquivalent(to: try LottieParser().parseJSON(Array(text.utf8))))
    }

    @Test func versionMayArriveAsANumber() throws {
        let animation = try LottieParser().parse(Array(#"{"v":5,"layers":[]}"#.utf8))
        #expect(animation.version == "5")
        #expect(animation.versionIsNumber)
        #expect(try LottieParser().parseJSON(animation.encoded()).objectValue?["v"] == .int(5))
    }

    @Test func wronglyTypedFieldsAreKeptNotLost() throws {
        let text = #"{"fr":"fast","w":true,"layers":[{"ty":"4","ind":"one","ks":[1]}, 7], "v":{"x":1},"assets":[{"id":"p","layers":[1]}]}"#
        let input = try LottieParser().parseJSON(Array(text.utf8))
        let animation = try LottieParser().parse(Array(text.utf8))
        #expect(animation.frameRate == nil)
        #expect(animation.layers == nil)
        #expect(animation.version == nil)
        let encoded = try LottieParser().parseJSON(animation.encoded())
        #expect(encoded.isEquivalent(to: input))
        #expect(encoded.objectValue?["assets"]?.arrayValue?.first?.objectValue?.count == 2)
    }

    @Test func embeddedImageDataURLsDecode() throws {
        let text = #"{"assets":[{"id":"i","p":"data:image/png;base64,iVBORw0KGgo=","e":1}],"layers":[]}"#
        let animation = try LottieParser().parse(Array(text.utf8))
        guard case .image(let image)? = animation.assets?.first,
              case .embedded(let type, let data) = image.source else { Issue.record("not embedded"); return }
        #expect(type == "image/png")
        #expect(Array(data) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
