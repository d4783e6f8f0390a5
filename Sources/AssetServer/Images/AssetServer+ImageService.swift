import AssetImaging
import AssetPipeline

extension AssetServer {
    /// How the image service (`/v1/image` with a transform) makes and guards variants. The CLI's
    /// `assetpipe serve` sets each field from a flag or an `ASSETPIPE_*` variable.
    public struct ImageService: Sendable {
        /// The image util's limits: transforms at once and waiting (`ImageUtil.Configuration`
        /// `maxConcurrentTransforms`, `maxQueuedTransforms`: a full queue is a 503 with
        /// `Retry-After`), source bytes (`maxInputBytes`), output pixels and side
        /// (`processor.maxOutputPixels`, `processor.maxOutputDimension`). Default: the util's
        /// defaults.
        public var util: ImageUtil.Configuration
        /// The most pixels a source may declare before it is decoded (a larger one is refused as
        /// `source_too_large` before any pixel memory). Default 100,000,000.
        public var maxSourcePixels: Int
        /// The longest a request waits for its variant to be made; it then gets 503
        /// `transform_timeout` with `Retry-After` (the transform goes on and is cached for the next
        /// request). Default 30 seconds.
        public var transformTimeout: Duration
        /// The seconds a 503 asks the client to wait (`Retry-After`). Default 1.
        public var retryAfterSeconds: Int
        /// With a signer, every variant request must carry its signature (`sig=` or the path form's
        /// first segment); others get 403 before any fetch or decode. Default nil: transforms are
        /// open, which the server says at start-up.
        public var signer: ImageURLSigner?
        /// Named transforms (`preset=thumb` or `preset:thumb`). Default none.
        public var presets: [String: ImageTransform]
        /// Only presets may be asked for (plus `format`, which picks among the encoders): other
        /// transform keys get 403 `preset_only`. Default false.
        public var presetsOnly: Bool

        /// A configuration with the defaults written on each property.
        public init(
            util: ImageUtil.Configuration = ImageUtil.Configuration(),
            maxSourcePixels: Int = 100_000_000,
            transformTimeout: Duration = .seconds(30),
            retryAfterSeconds: Int = 1,
            signer: ImageURLSigner? = nil,
            presets: [String: ImageTransform] = [:],
            presetsOnly: Bool = false
        ) {
            self.util = util
            self.maxSourcePixels = maxSourcePixels
            self.transformTimeout = transformTimeout
            self.retryAfterSeconds = retryAfterSeconds
            self.signer = signer
            self.presets = presets
            self.presetsOnly = presetsOnly
        }

        /// Parses a preset definition `NAME=w:256,h:256,fit:cover` (the transform in the text form of
        /// `ImageTransform(parsing:)`).
        /// - Throws: `ImagingError.invalidTransform` for a bad name or transform.
        public static func preset(parsing definition: String) throws -> (name: String, transform: ImageTransform) {
            guard let separator = definition.firstIndex(of: "=") else {
                throw ImagingError.invalidTransformText("a preset is NAME=TRANSFORM (got '\(definition)')")
            }
            let name = String(definition[..<separator])
            guard !name.isEmpty, name.utf8.count <= 64,
                name.utf8.allSatisfy({ $0.isASCIIAlphanumericOrDash })
            else { throw ImagingError.invalidTransformText("a preset name is letters, digits, '-' and '_' (got '\(name)')") }
            return (name, try ImageTransform(parsing: String(definition[definition.index(after: separator)...])))
        }
    }
}

extension UInt8 {
    var isASCIIAlphanumericOrDash: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || self == 0x2D || self == 0x5F
    }
}
