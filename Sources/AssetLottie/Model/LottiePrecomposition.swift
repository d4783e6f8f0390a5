/// A precomposition asset: an `id` and its own `layers`, which precomposition layers (`ty` 0) refer to.
public struct LottiePrecomposition: Sendable, Equatable {
    /// `id`: what the `refId` of precomposition layers names.
    public var id: String?
    /// `nm`: the precomposition's name.
    public var name: String?
    /// `fr`: the precomposition's own frame rate.
    public var frameRate: Double?
    /// `layers`: its layers; empty when the list is not all objects (it then stays in ``extra``).
    public var layers: [LottieLayer]
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a precomposition; the members left `nil` are left out of ``json``.
    public init(id: String?, name: String? = nil, frameRate: Double? = nil, layers: [LottieLayer],
                extra: JSONObject = JSONObject()) {
        self.id = id
        self.name = name
        self.frameRate = frameRate
        self.layers = layers
        self.extra = extra
    }

    init(object: JSONObject, decoder: inout LottieModelDecoder) throws(LottieError) {
        self.init(id: nil, layers: [])
        for member in object.uniqueMembers {
            switch member.key {
            case "id": if let text = member.value.stringValue { id = text; continue }
            case "nm": if let text = member.value.stringValue { name = text; continue }
            case "fr": if let number = member.value.doubleValue { frameRate = number; continue }
            case "layers":
                if case .array(let list) = member.value, let typed = try decoder.layers(list) {
                    layers = typed
                    continue
                }
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The asset as JSON: the typed members first, then those in ``extra``.
    public var json: JSONValue {
        var object = JSONObject()
        object.append("id", id.map(JSONValue.string))
        object.append("nm", name.map(JSONValue.string))
        object.append("fr", frameRate.map(JSONValue.double))
        // A `layers` list that was not all objects stayed untyped in `extra`; write it once, from there.
        if extra["layers"] == nil { object.append("layers", .array(layers.map(\.json))) }
        object.members += extra.members
        return .object(object)
    }
}
