/// A layer's transform (`ks`): anchor, position, scale, rotation, opacity, skew.
///
/// A property that is not an object (or a split position's own shape) stays in `extra`.
public struct LottieTransform: Sendable, Equatable {
    /// `a`: the anchor point.
    public var anchor: LottieAnimatedProperty?
    /// `p`: the position (a position split into `x` and `y` stays in ``extra``).
    public var position: LottieAnimatedProperty?
    /// `s`: the scale, in percent.
    public var scale: LottieAnimatedProperty?
    /// `r`: the rotation, in degrees.
    public var rotation: LottieAnimatedProperty?
    /// `o`: the opacity, from 0 to 100.
    public var opacity: LottieAnimatedProperty?
    /// `sk`: the skew, in degrees.
    public var skew: LottieAnimatedProperty?
    /// `sa`: the direction of the skew, in degrees.
    public var skewAxis: LottieAnimatedProperty?
    /// Members this model does not type (3D rotations, split positions, unknown keys).
    public var extra: JSONObject

    /// Creates a transform with no typed property; `extra` holds any other members.
    public init(extra: JSONObject = JSONObject()) {
        self.extra = extra
    }

    init(object: JSONObject) {
        self.init()
        for member in object.uniqueMembers {
            if case .object(let inner) = member.value, inner["k"] != nil {
                let property = LottieAnimatedProperty(object: inner)
                switch member.key {
                case "a": anchor = property; continue
                case "p": position = property; continue
                case "s": scale = property; continue
                case "r": rotation = property; continue
                case "o": opacity = property; continue
                case "sk": skew = property; continue
                case "sa": skewAxis = property; continue
                default: break
                }
            }
            extra.members.append(member)
        }
    }

    /// The typed properties with their keys, in writing order.
    public var properties: [(key: String, property: LottieAnimatedProperty)] {
        let all: [(String, LottieAnimatedProperty?)] = [
            ("a", anchor), ("p", position), ("s", scale), ("r", rotation), ("o", opacity), ("sk", skew), ("sa", skewAxis),
        ]
        return all.compactMap { key, property in property.map { (key, $0) } }
    }

    /// The transform as JSON.
    public var json: JSONValue {
        var object = JSONObject()
        for (key, property) in properties { object.append(key, property.json) }
        object.members += extra.members
        return .object(object)
    }
}
