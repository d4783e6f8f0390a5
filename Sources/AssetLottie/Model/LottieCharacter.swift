/// One glyph of `chars`: character `ch`, family `fFamily`, `style`, `size`, advance width `w`, and its
/// shapes `data` (untyped).
public struct LottieCharacter: Sendable, Equatable {
    /// `ch`: the character.
    public var character: String?
    /// `fFamily`: the font family.
    public var family: String?
    /// `style`: the font style.
    public var style: String?
    /// `size`: the font size.
    public var size: Double?
    /// `w`: the advance width.
    public var width: Double?
    /// `data`: the glyph's shapes, untyped.
    public var data: JSONValue?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a glyph; the members left `nil` are left out of ``json``.
    public init(character: String? = nil, family: String? = nil, style: String? = nil, size: Double? = nil,
                width: Double? = nil, data: JSONValue? = nil, extra: JSONObject = JSONObject()) {
        self.character = character
        self.family = family
        self.style = style
        self.size = size
        self.width = width
        self.data = data
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            switch member.key {
            case "ch": if let text = member.value.stringValue { character = text; continue }
            case "fFamily": if let text = member.value.stringValue { family = text; continue }
            case "style": if let text = member.value.stringValue { style = text; continue }
            case "size": if let number = member.value.doubleValue { size = number; continue }
            case "w": if let number = member.value.doubleValue { width = number; continue }
            case "data": data = member.value; continue
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The glyph as JSON: the typed members first, then those in ``extra``.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("ch", character.map(JSONValue.string))
        object.append("fFamily", family.map(JSONValue.string))
        object.append("style", style.map(JSONValue.string))
        object.append("size", size.map(JSONValue.double))
        object.append("w", width.map(JSONValue.double))
        object.append("data", data)
        object.members += extra.members
        return .object(object)
    }
}
