/// The `fonts` object: its `list` of fonts plus any other members.
public struct LottieFontList: Sendable, Equatable {
    public var list: [LottieFont]?
    public var extra: JSONObject

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

    public var json: JSONValue {
        var object = JSONObject()
        object.append("list", list.map { JSONValue.array($0.map(\.json)) })
        object.members += extra.members
        return .object(object)
    }
}
