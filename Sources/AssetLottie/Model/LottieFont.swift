/// One font of `fonts.list`: name `fName`, family `fFamily`, style `fStyle`, `ascent`, path `fPath`.
public struct LottieFont: Sendable, Equatable {
    public var name: String?
    public var family: String?
    public var style: String?
    public var ascent: Double?
    public var path: String?
    public var extra: JSONObject

    public init(name: String? = nil, family: String? = nil, style: String? = nil, ascent: Double? = nil,
                path: String? = nil, extra: JSONObject = JSONObject()) {
        self.name = name
        self.family = family
        self.style = style
        self.ascent = ascent
        self.path = path
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            switch member.key {
            case "fName": if let text = member.value.stringValue { name = text; continue }
            case "fFamily": if let text = member.value.stringValue { family = text; continue }
            case "fStyle": if let text = member.value.stringValue { style = text; continue }
            case "ascent": if let number = member.value.doubleValue { ascent = number; continue }
            case "fPath": if let text = member.value.stringValue { path = text; continue }
            default: break
            }
            extra.members.append(member)
        }
    }

    public var json: JSONValue {
        var object = JSONObject()
        object.append("fName", name.map(JSONValue.string))
        object.append("fFamily", family.map(JSONValue.string))
        object.append("fStyle", style.map(JSONValue.string))
        object.append("ascent", ascent.map(JSONValue.double))
        object.append("fPath", path.map(JSONValue.string))
        object.members += extra.members
        return .object(object)
    }
}
