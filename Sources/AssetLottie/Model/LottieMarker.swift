/// A named time range (`markers[]`): comment `cm`, time `tm`, duration `dr` (frames).
public struct LottieMarker: Sendable, Equatable {
    /// `cm`: the marker's comment, its name.
    public var comment: String?
    /// `tm`: where the range starts, in frames.
    public var time: Double?
    /// `dr`: how long the range lasts, in frames.
    public var duration: Double?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a marker; the members left `nil` are left out of ``json``.
    public init(comment: String? = nil, time: Double? = nil, duration: Double? = nil, extra: JSONObject = JSONObject()) {
        self.comment = comment
        self.time = time
        self.duration = duration
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            switch member.key {
            case "cm": if let text = member.value.stringValue { comment = text; continue }
            case "tm": if let number = member.value.doubleValue { time = number; continue }
            case "dr": if let number = member.value.doubleValue { duration = number; continue }
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The marker as JSON: the typed members first, then those in ``extra``.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("cm", comment.map(JSONValue.string))
        object.append("tm", time.map(JSONValue.double))
        object.append("dr", duration.map(JSONValue.double))
        object.members += extra.members
        return .object(object)
    }
}
