import AssetLottie

extension RLottieJSON {
    /// `animation` with every layer (of `layers` and of each asset's `layers`) given its `ddd`
    /// explicitly, right before its `ks`: 1 for a 3D layer or one whose `ks` has a 3D rotation
    /// (`rx`, `ry` or `rz`), 0 otherwise.
    ///
    /// rlottie 0.1 starts each layer as 3D and parses `ks` when it meets it, with the flag as
    /// read so far; a 3D transform takes its rotation from `rz` and drops `r`. So a 2D layer
    /// whose `ddd` is absent (0, as Lottie says) or written after `ks` lost its rotation. A
    /// number or a boolean is taken by its truth (rlottie reads `ddd` as an integer and keeps
    /// whether it is 0); anything else as absent.
    ///
    /// rlottie reads `rx`, `ry` and `rz` only on a 3D layer: on a 2D one it fails to load the
    /// file (all three) or draws the layer as nothing (`rz` alone), where lottie-ios turns the
    /// layer. Such a layer is written as 3D, as rlottie read it before (lottie-ios'
    /// `pr_1930_*.json`).
    static func layersWithThreeDFlagFirst(_ animation: JSONValue) -> JSONValue {
        guard case .object(var root) = animation else { return animation }
        for position in root.members.indices {
            switch root.members[position].key {
            case "layers":
                root.members[position].value = layerList(root.members[position].value)
            case "assets":
                guard case .array(var assets) = root.members[position].value else { continue }
                for index in assets.indices {
                    guard case .object(var asset) = assets[index] else { continue }
                    for member in asset.members.indices where asset.members[member].key == "layers" {
                        asset.members[member].value = layerList(asset.members[member].value)
                    }
                    assets[index] = .object(asset)
                }
                root.members[position].value = .array(assets)
            default:
                continue
            }
        }
        return .object(root)
    }

    private static func layerList(_ list: JSONValue) -> JSONValue {
        guard case .array(var layers) = list else { return list }
        for index in layers.indices {
            if case .object(let layer) = layers[index] { layers[index] = .object(withThreeDFlagFirst(layer)) }
        }
        return .array(layers)
    }

    private static func withThreeDFlagFirst(_ layer: JSONObject) -> JSONObject {
        var flag: Bool
        switch layer["ddd"] {
        case .int(let number)?: flag = number != 0
        case .double(let number)?: flag = number != 0
        case .bool(let value)?: flag = value
        default: flag = false
        }
        if let transform = layer["ks"]?.objectValue, transform.members.contains(where: { ["rx", "ry", "rz"].contains($0.key) }) {
            flag = true
        }
        var members = layer.members.filter { $0.key != "ddd" }
        let position = members.firstIndex { $0.key == "ks" } ?? members.count
        members.insert(JSONObject.Member(key: "ddd", value: .int(flag ? 1 : 0)), at: position)
        return JSONObject(members: members)
    }
}
