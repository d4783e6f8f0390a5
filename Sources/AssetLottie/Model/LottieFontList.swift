/// The `fonts` object: its `list` of fonts plus any other members.
public struct LottieFontList: Sendable, Equatable {
    /// `list`: the fonts (`nil` when absent or not a list of objects).
    public var list: [LottieFont]?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a font list; a `nil` list is left out of ``json``.
    public init(list: [LottieFont]? = nil, extra: JSONObject = JSONObject()) {
        self.list = list
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            if member.key == "list", let objects = member.value.objectElements {
                list = objects.map(LottieFont.init(object:))
                continue
            }
            extra.members.append(member)
        }
    }

    /// The `fonts` object as JSON: `list` first, then the members in ``extra``.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("list", list.map { JSONValue.array($0.map(\.json)) })
        object.members += extra.members
        return .object(object)
    }
}
