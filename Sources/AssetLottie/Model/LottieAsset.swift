/// An entry of `assets`: a precomposition (has `layers`), an image (has `p`), or anything else kept whole.
public enum LottieAsset: Sendable, Equatable {
    /// An asset with a `layers` array: a composition that precomposition layers refer to.
    case precomposition(LottiePrecomposition)
    /// An asset with a string `p` (and no `layers` array): an image.
    case image(LottieImageAsset)
    /// Sounds, data sources, or assets of an unknown kind, kept as they came.
    case other(JSONObject)

    /// The asset's `id`.
    public var id: String? {
        switch self {
        case .precomposition(let asset): return asset.id
        case .image(let asset): return asset.id
        case .other(let object): return object["id"]?.stringValue
        }
    }

    init(object: JSONObject, decoder: inout LottieModelDecoder) throws(LottieError) {
        if case .array? = object["layers"] {
            self = .precomposition(try LottiePrecomposition(object: object, decoder: &decoder))
        } else if object["p"]?.stringValue != nil {
            self = .image(LottieImageAsset(object: object))
        } else {
            self = .other(object)
        }
    }

    /// The asset as JSON.
    public var json: JSONValue {
        switch self {
        case .precomposition(let asset): return asset.json
        case .image(let asset): return asset.json
        case .other(let object): return .object(object)
        }
    }
}
