/// One font of `fonts.list`: name `fName`, family `fFamily`, style `fStyle`, `ascent`, path `fPath`.
public struct LottieFont: Sendable, Equatable {
    /// `fName`: the font's name.
    public var name: String?
    /// `fFamily`: the font family.
    public var family: String?
    /// `fStyle`: the font style.
    public var style: String?
    /// `ascent`: the font's ascent.
    public var ascent: Double?
    /// `fPath`: where the font file is.
    public var path: String?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a font; the members left `nil` are left out of ``json``.
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

    /// The font as JSON: the typed members first, then those in ``extra``.
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
