import AssetLottie

/// Writes an animation's JSON so that rlottie 0.1 reads it as Lottie means it, where rlottie's
/// reading depends on how valid JSON is spelled.
///
/// - **Repeated keys**: one member per key in every object, with the last value (as our parser's
///   look-ups, JavaScript and Python keep) at the first key's position (see
///   ``lastValues(of:)``). rlottie copies a repeated name once per occurrence and leaks the copies.
/// - **Dash arrays**: a stroke's (`st`, `gs`) dash array with its one offset entry last (see
///   ``dashesWithOffsetLast(_:)``). rlottie ignores `n` and takes the last entry as the offset.
/// - **Shape items**: `ty` first in each item of a `shapes` or `it` list (see
///   ``shapeItemsWithTypeFirst(_:)``). rlottie skips an item's members until its `ty`.
/// - **Stars and polygons**: an `sr` item's rotation `r` halved (see
///   ``starWithRotationHalved(_:)``). rlottie turns the item by `r` twice.
/// - **Masks of mode `n`**: dropped (see ``layerWithoutInertMasks(_:)``). They do nothing;
///   rlottie hides the whole layer behind one.
/// - **Dashes of length 0**: followed by a gap, under round or square caps, given a length of a
///   sixteenth of the stroke's width (see ``strokeWithZeroDashesDrawn(_:)``). They are dots;
///   rlottie drops them.
/// - **Static time remaps**: written as keyframes of their value (see
///   ``layerWithTimeRemapKeyframed(_:)``). rlottie takes a static `tm` for none.
/// - **Colours eased past 0...1**: written frame by frame, clamped, where an easing overshoots
///   (see ``colorWithOvershootClamped(_:)``). rlottie wraps a channel past 1 around to near 0.
/// - **3D flags**: each layer's `ddd` written, 0 when absent (1 when `ks` has `rx`, `ry` or
///   `rz`), before `ks` (see ``layersWithThreeDFlagFirst(_:)``). rlottie takes a layer as 3D
///   until it reads `ddd`, and reads `ks` as it comes, so a late or missing flag drops the
///   layer's 2D rotation.
/// - **Path coordinates**: a path's or a mask's vertices and tangents within a bound (see
///   ``checkPathCoordinates(_:limit:path:)``); past it, the animation is refused. rlottie's
///   rasterizer takes time in proportion to how far an edge reaches.
///
/// Objects and arrays are walked with an explicit stack, so any depth the parser accepts is fine.
enum RLottieJSON {
    /// `animation` (the model's JSON) rewritten for rlottie.
    /// - Throws: `LottieRenderError.unsupported` for a path or mask coordinate past
    ///   `maxPathCoordinate`.
    static func rewrite(_ animation: JSONValue, maxPathCoordinate: Double) throws(LottieRenderError) -> JSONValue {
        let rewritten = try rewriteObjects(in: animation) { (object: JSONObject, path: () -> String) throws(LottieRenderError) -> JSONObject in
            var object = layerWithoutInertMasks(starWithRotationHalved(shapeItemsWithTypeFirst(lastValues(of: object))))
            object = colorWithOvershootClamped(layerWithTimeRemapKeyframed(object))
            if let type = object["ty"]?.stringValue, type == "st" || type == "gs",
               let position = object.members.lastIndex(where: { $0.key == "d" }),
               case .array(let entries) = object.members[position].value {
                object.members[position].value = .array(dashesWithOffsetLast(entries))
                object = strokeWithZeroDashesDrawn(object)
            }
            try checkPathCoordinates(object, limit: maxPathCoordinate, path: path)
            return object
        }
        return layersWithThreeDFlagFirst(rewritten)
    }

    /// One container being rebuilt: its children, and those already rewritten.
    private struct Frame {
        /// The object whose members are visited, or nil for an array.
        let object: JSONObject?
        /// The array's elements (empty for an object).
        let elements: [JSONValue]
        /// The children rewritten so far, in order.
        var done: [JSONValue] = []

        var count: Int { object?.count ?? elements.count }

        func child(_ position: Int) -> JSONValue { object?.members[position].value ?? elements[position] }
    }

    /// `root` with `transform` applied to every object, parents before their members.
    /// `transform` gets a function that spells the object's JSON path (`$.layers[0].shapes[1]`),
    /// for messages.
    private static func rewriteObjects(
        in root: JSONValue,
        _ transform: (JSONObject, () -> String) throws(LottieRenderError) -> JSONObject
    ) throws(LottieRenderError) -> JSONValue {
        var stack: [Frame] = []
        var value = root
        descend: while true {
            switch value {
            case .array(let elements) where !elements.isEmpty:
                stack.append(Frame(object: nil, elements: elements))
                value = elements[0]
                continue descend
            case .object(let object):
                let rewritten = try transform(object) { path(of: stack) }
                guard !rewritten.isEmpty else {
                    value = .object(rewritten)
                    break
                }
                stack.append(Frame(object: rewritten, elements: []))
                value = rewritten.members[0].value
                continue descend
            default:
                break
            }
            // `value` is done: hand it to its parent, then go on with the next sibling or close the parent.
            while !stack.isEmpty {
                let top = stack.count - 1
                stack[top].done.append(value)
                let next = stack[top].done.count
                if next < stack[top].count {
                    value = stack[top].child(next)
                    continue descend
                }
                let frame = stack.removeLast()
                if let object = frame.object {
                    var members = object.members
                    for position in members.indices { members[position].value = frame.done[position] }
                    value = .object(JSONObject(members: members))
                } else {
                    value = .array(frame.done)
                }
            }
            return value
        }
    }

    /// The JSON path of the value the innermost frame of `stack` is at.
    private static func path(of stack: [Frame]) -> String {
        var text = "$"
        for frame in stack {
            let position = frame.done.count
            if let object = frame.object {
                text += ".\(object.members[position].key)"
            } else {
                text += "[\(position)]"
            }
        }
        return text
    }
}
