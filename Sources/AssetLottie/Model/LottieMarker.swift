/// A named time range (`markers[]`): comment `cm`, time `tm`, duration `dr` (frames).
public struct LottieMarker: Sendable, Equatable {
    public var comment: String?
    public var time: Double?
    public var duration: Double?
    public var extra: JSONObject

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

    public var json: JSONValue {
        var object = JSONObject()
        object.append("cm", comment.map(JSONValue.string))
        object.append("tm", time.map(JSONValue.double))
        object.append("dr", duration.map(JSONValue.double))
        object.members += extra.members
        return .object(object)
    }
}
