import AssetLottie

extension RLottieJSON {
    /// A stroke's dash array (`d`) with the offset entry last: the dash and gap entries in their
    /// order, then the last offset entry (`n` "o") that has a value `v`, or a zero offset when
    /// there is none and some dash or gap has a value. Other offset entries are dropped.
    ///
    /// Lottie names each entry by `n` (`d` dash, `g` gap, `o` offset) and players read them by
    /// name; rlottie 0.1 ignores `n`, keeps every entry with a `v` in order and takes the last
    /// as the offset. Written offset first (as Glaxnimate does), the offset becomes the first
    /// dash length and nothing is drawn; written without an offset, the last gap becomes one.
    /// An array already in that shape (dashes and gaps, then one offset) is returned as it came.
    static func dashesWithOffsetLast(_ entries: [JSONValue]) -> [JSONValue] {
        var lengths: [JSONValue] = []
        var offset: JSONValue?
        var offsets = 0
        for entry in entries {
            guard case .object(let object) = entry, object["n"] == .string("o") else {
                lengths.append(entry)
                continue
            }
            offsets += 1
            if object["v"] != nil { offset = entry }
        }
        let valued = lengths.contains { entry in
            if case .object(let object) = entry { return object["v"] != nil }
            return false
        }
        if let offset {
            if offsets == 1, entries.last == offset { return entries }
            return lengths + [offset]
        }
        guard valued else { return entries }
        return lengths + [zeroOffset]
    }

    /// `{"n": "o", "nm": "offset", "v": {"a": 0, "k": 0}}`: what a dash array without an offset means.
    static let zeroOffset: JSONValue = .object(JSONObject(members: [
        .init(key: "n", value: .string("o")),
        .init(key: "nm", value: .string("offset")),
        .init(key: "v", value: .object(JSONObject(members: [.init(key: "a", value: .int(0)), .init(key: "k", value: .int(0))]))),
    ]))
}

extension RLottieJSON {
    /// A stroke (`st`, `gs`) with round or square caps (`lc` 2 or 3) and a static width `w`,
    /// with each dash entry of static length 0 followed by a static gap of at least `w` / 16
    /// given that length, taken from the gap, so that the dash period stays. Other objects, and
    /// other entries, as they came: a dash array of zeros alone is a solid line (as SVG says, and
    /// as both rlottie and ThorVG draw it).
    ///
    /// A dash of length 0 under round or square caps is a dot or a square of the stroke's width
    /// (lottie-web, ThorVG): a dotted line. rlottie 0.1 draws nothing for it: its dasher returns
    /// an empty path when every dash is 0, and its stroker drops a segment shorter than about a
    /// tenth of a pixel (lottie-ios' `issue_1557`, dashes 0 and gaps 15 under a width of 8:
    /// blank, where ThorVG draws 1.9% of the frame in dots). A dash of `w` / 16 makes a dot
    /// 6% longer than wide, and stays past that tenth of a pixel for a dot of 1.6 pixels or
    /// more. Under butt caps (`lc` 1, or no `lc`) a dash of length 0 draws nothing, as rlottie
    /// draws it.
    static func strokeWithZeroDashesDrawn(_ object: JSONObject) -> JSONObject {
        guard let type = object["ty"]?.stringValue, type == "st" || type == "gs",
              let cap = object["lc"]?.intValue, cap == 2 || cap == 3,
              let width = staticNumber(object["w"]), width > 0, width.isFinite,
              let position = object.members.lastIndex(where: { $0.key == "d" }),
              case .array(var entries) = object.members[position].value else { return object }
        let length = width / 16
        var changed = false
        for index in entries.indices.dropLast() where dashEntry(entries[index], named: "d", length: { $0 == 0 }) {
            guard dashEntry(entries[index + 1], named: "g", length: { $0 >= length }),
                  let gap = entries[index + 1].objectValue.flatMap({ staticNumber($0["v"]) }) else { continue }
            entries[index] = withDashLength(entries[index], length)
            entries[index + 1] = withDashLength(entries[index + 1], gap - length)
            changed = true
        }
        guard changed else { return object }
        var object = object
        object.members[position].value = .array(entries)
        return object
    }

    /// Whether `entry` is a dash array entry named `name` (`n`) whose static length passes `test`.
    private static func dashEntry(_ entry: JSONValue, named name: String, length test: (Double) -> Bool) -> Bool {
        guard let object = entry.objectValue, object["n"]?.stringValue == name,
              let length = staticNumber(object["v"]) else { return false }
        return test(length)
    }

    /// `entry` with its value `v` the static `length`.
    private static func withDashLength(_ entry: JSONValue, _ length: Double) -> JSONValue {
        guard case .object(var object) = entry, let position = object.members.lastIndex(where: { $0.key == "v" }),
              case .object(var value) = object.members[position].value else { return entry }
        value.members.removeAll { $0.key == "a" || $0.key == "k" }
        value.members.insert(contentsOf: [.init(key: "a", value: .int(0)), .init(key: "k", value: .double(length))], at: 0)
        object.members[position].value = .object(value)
        return .object(object)
    }

    /// The value of a property that does not change: `{"a": 0, "k": x}` (or without `a`), `x`
    /// a number or a list of one number.
    static func staticNumber(_ property: JSONValue?) -> Double? {
        guard let property = property?.objectValue else { return nil }
        if let animated = property["a"], animated.intValue != 0 { return nil }
        switch property["k"] {
        case .array(let values)? where values.count == 1: return values[0].doubleValue
        case let value?: return value.doubleValue
        case nil: return nil
        }
    }
}
