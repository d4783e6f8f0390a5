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
    /// `ip`: the first frame.
    public var inPoint: Double?
    /// `op`: the frame after the last.
    public var outPoint: Double?
    /// `w`: the composition's width (an integer in valid files).
    public var width: Double?
    /// `h`: the composition's height (an integer in valid files).
    public var height: Double?
    /// `nm`: the animation's name.
    public var name: String?
    /// `ddd`: 1 for a 3D composition.
    public var threeD: Int?
    /// `markers`: named time ranges (`nil` when absent or not a list of objects).
    public var markers: [LottieMarker]?
    /// `fonts`: the fonts of the text layers (`nil` when absent or not an object).
    public var fonts: LottieFontList?
    /// `chars`: the glyphs of the text layers (`nil` when absent or not a list of objects).
    public var characters: [LottieCharacter]?
    /// `assets`: precompositions, images, others.
    public var assets: [LottieAsset]?
    /// `layers`: the root composition's layers (`nil` when absent or not a list of objects).
    public var layers: [LottieLayer]?
    /// Members this model does not type, kept as they came.
    public var extra: JSONObject

    /// Creates an animation from its top-level facts; everything else is unset (no version,
    /// markers, fonts, glyphs or assets, and no extra members).
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
