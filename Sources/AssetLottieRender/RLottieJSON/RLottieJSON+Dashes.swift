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
