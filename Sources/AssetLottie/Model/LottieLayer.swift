/// One layer of a composition.
///
/// The fields every layer type shares are typed here; what depends on the type (`ty`) is in `content`.
/// Shape and effect contents stay untyped `JSONValue`s; unknown members stay in `extra`.
public struct LottieLayer: Sendable, Equatable {
    /// What a layer draws, by its `ty`.
    public enum Content: Sendable, Equatable {
        /// `ty` 0: a precomposition (`refId` names an asset with layers); `w`, `h`, time remap `tm`.
        case precomposition(width: Double?, height: Double?, timeRemap: LottieAnimatedProperty?)
        /// `ty` 1: a solid colour `sc` of `sw` x `sh`.
        case solid(color: String?, width: Double?, height: Double?)
        /// `ty` 2: an image (`refId` names an image asset).
        case image
        /// `ty` 3: a null (transform only).
        case null
        /// `ty` 4: shapes (`shapes`, untyped).
        case shape(shapes: JSONValue?)
        /// `ty` 5: text (`t`, untyped).
        case text(document: JSONValue?)
        /// Any other `ty` (audio 6, camera 13, data 15, ...), or none: kept, not dropped.
        case unknown(type: Int?)

        /// The `ty` code.
        public var typeCode: Int? {
            switch self {
            case .precomposition: return 0
            case .solid: return 1
            case .image: return 2
            case .null: return 3
            case .shape: return 4
            case .text: return 5
            case .unknown(let type): return type
            }
        }
    }

    /// What the layer draws, from its `ty`, with the members that depend on it.
    public var content: Content
    /// `nm`: the layer's name.
    public var name: String?
    /// `ind`: the index that `parent` of other layers refers to.
    public var index: Int?
    /// `parent`: the `ind` of the parent layer in the same composition.
    public var parent: Int?
    /// `refId`: the asset of a precomposition or image layer.
    public var referenceID: String?
    /// `ip`: the in frame.
    public var inPoint: Double?
    /// `op`: the out frame.
    public var outPoint: Double?
    /// `st`: start time (frames).
    public var startTime: Double?
    /// `sr`: time stretch.
    public var stretch: Double?
    /// `ks`: the transform.
    public var transform: LottieTransform?
    /// `ddd`: 1 for a 3D layer.
    public var threeD: Int?
    /// `ao`: auto-orient along the path.
    public var autoOrient: Int?
    /// `hd`: hidden.
    public var hidden: Bool?
    /// `masksProperties` (untyped masks).
    public var masks: [JSONValue]?
    /// `tt`: the matte mode of this layer.
    public var matteMode: Int?
    /// `td`: 1 when this layer is a matte.
    public var matteTarget: Int?
    /// `tp`: the matte parent's `ind`.
    public var matteParent: Int?
    /// `ef`: effects (untyped).
    public var effects: [JSONValue]?
    /// `bm`: blend mode.
    public var blendMode: Int?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates a layer of `content`; every other typed member is unset, and `extra` holds any other
    /// members.
    public init(content: Content, extra: JSONObject = JSONObject()) {
        self.content = content
        self.extra = extra
    }

    /// The `ty` code (`nil` when absent or not an integer).
    public var typeCode: Int? { content.typeCode }
}
