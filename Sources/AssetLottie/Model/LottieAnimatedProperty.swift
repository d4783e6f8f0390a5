/// An animatable property: `{"a": 0, "k": value}` (static) or `{"a": 1, "k": [keyframes]}`.
public struct LottieAnimatedProperty: Sendable, Equatable {
    /// `a`: 1 when animated, 0 when static (`nil` when absent).
    public var animated: Int?
    /// `k`: the static value or the keyframe list, untyped.
    public var value: JSONValue?
    /// `x`: an After Effects expression.
    public var expression: String?
    /// `ix`: the property index.
    public var propertyIndex: Int?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a property; the members left `nil` are left out of ``json``.
    public init(animated: Int? = nil, value: JSONValue? = nil, expression: String? = nil,
                propertyIndex: Int? = nil, extra: JSONObject = JSONObject()) {
        self.animated = animated
        self.value = value
        self.expression = expression
        self.propertyIndex = propertyIndex
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            switch member.key {
            case "a": if case .int(let flag) = member.value { animated = flag; continue }
            case "k": value = member.value; continue
            case "x": if let text = member.value.stringValue { expression = text; continue }
            case "ix": if case .int(let number) = member.value { propertyIndex = number; continue }
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The property as JSON.
    public var json: JSONValue {
        var object = JSONObject()
        object.members.reserveCapacity(extra.count + 4)
        object.append("a", animated.map(JSONValue.int))
        object.append("k", value)
        object.append("x", expression.map(JSONValue.string))
        object.append("ix", propertyIndex.map(JSONValue.int))
        object.members += extra.members
        return .object(object)
    }

    /// The times (`t`) of the keyframes when `k` is a keyframe list; `nil` for a static value.
    public var keyframeTimes: [Double]? {
        JSONValue.keyframeTimes(of: value)
    }
}

extension JSONValue {
    /// The `t` of each element when `value` is a non-empty array of objects that all carry a numeric `t`.
    static func keyframeTimes(of value: JSONValue?) -> [Double]? {
        guard case .array(let elements)? = value, !elements.isEmpty else { return nil }
        var times: [Double] = []
        times.reserveCapacity(elements.count)
        for element in elements {
            guard case .object(let keyframe) = element, let time = keyframe["t"]?.doubleValue else { return nil }
            times.append(time)
        }
        return times
    }
}
