/// A Lottie animation as typed Swift values.
///
/// Top-level facts are typed; what the model does not type (shape contents, effects, unknown keys)
/// stays as lossless `JSONValue`s, so `json` gives back a document equivalent to the input.
/// A field whose JSON has another type than the model expects stays in `extra` rather than being lost.
public struct LottieAnimation: Sendable, Equatable {
    /// `v`: the exporter's version ("5.7.4"); a number when the file wrote one (`versionIsNumber`).
    public var version: String?
    /// `true` when `v` arrived as a JSON number (it is then written back as one).
    public var versionIsNumber: Bool
    /// `fr`: frames per second.
    public var frameRate: Double?
    /// `ip`, `op`: the first frame and the frame after the last.
    public var inPoint: Double?
    public var outPoint: Double?
    /// `w`, `h`: the composition's size (integers in valid files).
    public var width: Double?
    public var height: Double?
    /// `nm`
    public var name: String?
    /// `ddd`: 1 for a 3D composition.
    public var threeD: Int?
    public var markers: [LottieMarker]?
    public var fonts: LottieFontList?
    public var characters: [LottieCharacter]?
    /// `assets`: precompositions, images, others.
    public var assets: [LottieAsset]?
    /// `layers`: the root composition's layers (`nil` when absent or not a list of objects).
    public var layers: [LottieLayer]?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    public init(frameRate: Double? = nil, inPoint: Double? = nil, outPoint: Double? = nil,
                width: Double? = nil, height: Double? = nil, layers: [LottieLayer]? = nil) {
        self.version = nil
        self.versionIsNumber = false
        self.frameRate = frameRate
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.width = width
        self.height = height
        self.layers = layers
        self.extra = JSONObject()
    }
}
