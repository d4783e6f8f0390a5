import AssetLottie

extension RLottieJSON {
    /// `object` with each shape item of its `shapes` (a layer's) or `it` (a group's) list written
    /// `ty` first; other members and other objects as they came.
    ///
    /// rlottie 0.1 reads a shape item's members in order, skips each one until it meets `ty`,
    /// then reads the rest for that type: a member written before `ty` is lost. Exporters
    /// write `ty` anywhere (lottie-ios' samples put `ind` or `d` first, lottie-docs' `hd`), and
    /// JSON's members have no order, so a direction (`d`), a hidden flag (`hd`) or a blend mode
    /// written first was dropped. Every `ty` member moves (a repeated one is then merged by
    /// ``lastValues(of:)`` at the front, keeping the last value).
    static func shapeItemsWithTypeFirst(_ object: JSONObject) -> JSONObject {
        var object = object
        for position in object.members.indices where ["shapes", "it"].contains(object.members[position].key) {
            guard case .array(var items) = object.members[position].value else { continue }
            var changed = false
            for index in items.indices {
                guard case .object(let item) = items[index], let first = item.members.firstIndex(where: { $0.key == "ty" }),
                      first > 0 || item.members[(first + 1)...].contains(where: { $0.key == "ty" })
                else { continue }
                let types = item.members.filter { $0.key == "ty" }
                items[index] = .object(JSONObject(members: types + item.members.filter { $0.key != "ty" }))
                changed = true
            }
            if changed { object.members[position].value = .array(items) }
        }
        return object
    }

    /// A star or polygon (`ty` "sr") with its rotation `r` halved, so that rlottie draws it turned
    /// by `r` as Lottie says; any other object as it came.
    ///
    /// rlottie 0.1 turns the star's path by `r` twice (`m.translate(p).rotate(r); m.rotate(r)`
    /// in `Polystar::updatePath`): a five-point star with `r` -45 came out turned -90. Halving
    /// every value of `r` (a static number or list, each keyframe's `s` and `e`) halves the
    /// value at every time, easing included, since easing is a fraction of the way from one
    /// value to the next.
    static func starWithRotationHalved(_ object: JSONObject) -> JSONObject {
        guard object["ty"]?.stringValue == "sr",
              let position = object.members.lastIndex(where: { $0.key == "r" }),
              case .object(var rotation) = object.members[position].value else { return object }
        for member in rotation.members.indices where rotation.members[member].key == "k" {
            let value = rotation.members[member].value
            if case .array(var keyframes) = value, keyframes.contains(where: { $0.objectValue != nil }) {
                for index in keyframes.indices {
                    guard case .object(var keyframe) = keyframes[index] else { continue }
                    for entry in keyframe.members.indices where ["s", "e"].contains(keyframe.members[entry].key) {
                        keyframe.members[entry].value = halved(keyframe.members[entry].value)
                    }
                    keyframes[index] = .object(keyframe)
                }
                rotation.members[member].value = .array(keyframes)
            } else {
                rotation.members[member].value = halved(value)
            }
        }
        var object = object
        object.members[position].value = .object(rotation)
        return object
    }

    /// A number, or each number of a list, divided by 2; anything else as it came.
    private static func halved(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int(let number) where number % 2 == 0: return .int(number / 2)
        case .int(let number): return .double(Double(number) / 2)
        case .double(let number): return .double(number / 2)
        case .array(let elements): return .array(elements.map { $0.doubleValue == nil ? $0 : halved($0) })
        default: return value
        }
    }
}
