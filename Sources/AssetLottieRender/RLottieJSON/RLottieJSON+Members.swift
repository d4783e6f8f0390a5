import AssetLottie

extension RLottieJSON {
    /// `object` with one member per key: the last value of each key, at the position of its first
    /// occurrence; `object` itself when no key repeats.
    ///
    /// The last value is the one our parser's look-ups (`JSONObject`'s subscript, the typed
    /// model), JavaScript's `JSON.parse` (lottie-web) and Python's `json` (python-lottie) keep;
    /// the first position is where the latter two put the key. The position matters to rlottie,
    /// which reads a shape item's members only after its `ty`: a repeated `ty` moved to its
    /// last position would hide the members written before it.
    static func lastValues(of object: JSONObject) -> JSONObject {
        guard object.hasDuplicateKeys else { return object }
        var positions: [String: Int] = [:]
        var members: [JSONObject.Member] = []
        members.reserveCapacity(object.count)
        for member in object.members {
            if let position = positions[member.key] {
                members[position].value = member.value
            } else {
                positions[member.key] = members.count
                members.append(member)
            }
        }
        return JSONObject(members: members)
    }
}
