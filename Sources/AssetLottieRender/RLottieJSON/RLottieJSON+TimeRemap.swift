import AssetLottie

extension RLottieJSON {
    /// A precomposition layer (`ty` 0 with a `refId`) whose time remap `tm` is static, with `tm`
    /// written as two held keyframes of that value; other objects as they came.
    ///
    /// rlottie 0.1 takes a static `tm` for no time remap (it plays the precomposition from the
    /// layer's start), where Lottie freezes it at that time: lottie-ios' `timeremap` ("Freeze",
    /// `tm` 0.876 s) drew its square at frame 0 of the precomposition, not frame 21. A value
    /// that is the same at every time, written as keyframes, is read as a time remap.
    static func layerWithTimeRemapKeyframed(_ object: JSONObject) -> JSONObject {
        guard object["ty"]?.intValue == 0, object["refId"] != nil,
              let position = object.members.lastIndex(where: { $0.key == "tm" }),
              case .object(var remap) = object.members[position].value,
              let seconds = staticNumber(.object(remap)) else { return object }
        func keyframe(_ time: Int) -> JSONValue {
            .object(JSONObject(members: [
                .init(key: "t", value: .int(time)), .init(key: "s", value: .array([.double(seconds)])), .init(key: "h", value: .int(1)),
            ]))
        }
        remap.members.removeAll { $0.key == "a" || $0.key == "k" }
        remap.members.insert(contentsOf: [.init(key: "a", value: .int(1)), .init(key: "k", value: .array([keyframe(0), keyframe(1)]))], at: 0)
        var object = object
        object.members[position].value = .object(remap)
        return object
    }

    /// The latest time, in frames of the composition (`seconds` x `frameRate`), that a time
    /// remap (`tm`) of a precomposition layer of `animation` names: the largest of its static
    /// value and its keyframes' values (`s`, `e`); nil when no layer has one.
    ///
    /// rlottie 0.1 turns a time remap's seconds into a frame through the top composition,
    /// clamped to its last frame (`frameAtTime`): a precomposition remapped past the end of
    /// the animation is drawn at that last frame instead (lottie-ios' `pr_1604_2`, remapped to
    /// 0.94 s of a 0.62 s animation, where the precomposition's layers have not started: blank,
    /// where ThorVG draws a ring). ``LottieFrameRenderer/prepare(_:)`` lengthens the composition
    /// rlottie reads (`op`) past this time. A value between keyframes beyond both (an easing
    /// that overshoots) is not counted.
    static func timeRemapReach(in animation: JSONValue, frameRate: Double) -> Double? {
        guard case .object(let root) = animation else { return nil }
        var lists = [root["layers"]]
        for asset in root["assets"]?.arrayValue ?? [] { lists.append(asset.objectValue?["layers"]) }
        var reach: Double?
        for case .array(let layers)? in lists {
            for layer in layers {
                guard let layer = layer.objectValue, layer["ty"]?.intValue == 0,
                      let remap = layer["tm"]?.objectValue else { continue }
                var values: [Double] = []
                if let value = staticNumber(.object(remap)) {
                    values.append(value)
                } else {
                    for keyframe in remap["k"]?.arrayValue ?? [] {
                        for key in ["s", "e"] {
                            switch keyframe.objectValue?[key] {
                            case .array(let list)?: values.append(contentsOf: list.prefix(1).compactMap(\.doubleValue))
                            case let value?: if let number = value.doubleValue { values.append(number) }
                            case nil: continue
                            }
                        }
                    }
                }
                for value in values where value.isFinite {
                    reach = max(reach ?? -.infinity, value * frameRate)
                }
            }
        }
        return reach
    }
}
