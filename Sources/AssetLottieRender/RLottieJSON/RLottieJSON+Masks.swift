import AssetLottie

extension RLottieJSON {
    /// A layer (an object with `masksProperties`) without its masks of mode `n` (none); with
    /// `hasMask` false and no `masksProperties` when no other mask is left. Other objects, and a
    /// layer without such a mask, as they came.
    ///
    /// A mask of mode `n` does nothing: lottie-web and ThorVG skip it. rlottie 0.1 keeps it as
    /// a mask that lets nothing through, so the layer was not drawn at all (lottie-ios'
    /// `issue_1603`: a stroked rectangle under one `n` mask, drawn by ThorVG, blank in ours).
    static func layerWithoutInertMasks(_ object: JSONObject) -> JSONObject {
        guard let position = object.members.lastIndex(where: { $0.key == "masksProperties" }),
              case .array(let masks) = object.members[position].value,
              masks.contains(where: isInertMask) else { return object }
        let kept = masks.filter { !isInertMask($0) }
        var object = object
        if kept.isEmpty {
            object.members.removeAll { $0.key == "masksProperties" }
            for index in object.members.indices where object.members[index].key == "hasMask" {
                object.members[index].value = .bool(false)
            }
        } else {
            object.members[position].value = .array(kept)
        }
        return object
    }

    private static func isInertMask(_ mask: JSONValue) -> Bool {
        mask.objectValue?["mode"]?.stringValue == "n"
    }
}
