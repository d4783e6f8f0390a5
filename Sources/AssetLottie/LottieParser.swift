import Foundation

/// Parses Lottie JSON into a `LottieAnimation`: fast, bounded, lenient by default.
///
/// The bytes are read by a byte-level, iterative JSON parser (no Foundation on the hot path); every
/// limit in `Configuration` ends in a typed `LottieError`. With `strict`, the model is also validated
/// and every problem is reported at once (`LottieError.validationFailed`, see `problems`).
public struct LottieParser: Sendable {
    /// Limits and mode. The defaults fit real animations with room to spare.
    public struct Configuration: Sendable {
        /// Reject inputs larger than this. Default 64 MiB.
        public var maxInputBytes: Int = 64 << 20
        /// Deepest nesting of arrays and objects. Default 512 (real files stay under 30).
        ///
        /// Parsing, writing and comparing are iterative, but Swift releases a nested value
        /// recursively: keep this well under ~10,000.
        public var maxDepth: Int = 512
        /// Longest string, in UTF-8 bytes (embedded images are long strings). Default 32 MiB.
        public var maxStringBytes: Int = 32 << 20
        /// Longest number literal, in characters. Default 1,000.
        public var maxNumberLength: Int = 1_000
        /// Most layers, the root's and every precomposition's together. Default 100,000.
        public var maxLayers: Int = 100_000
        /// Validate after parsing and throw `validationFailed` when there are problems. Default `false`.
        public var strict: Bool = false

        /// The default limits, lenient; each default is written on its property.
        public init() {}

        /// The default limits with `strict` set.
        public static var strict: Configuration {
            var configuration = Configuration()
            configuration.strict = true
            return configuration
        }

        var jsonLimits: JSONParser.Limits {
            JSONParser.Limits(maxDepth: max(1, maxDepth), maxStringBytes: maxStringBytes, maxNumberLength: maxNumberLength)
        }
    }

    /// The limits and mode of every parse this parser does.
    public var configuration: Configuration

    /// Creates a parser; by default lenient, with the default limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Parses one animation from raw bytes.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(LottieError) -> LottieAnimation {
        let document = try parseJSON(bytes)
        let animation = try LottieAnimation(json: document, maxLayers: configuration.maxLayers)
        if configuration.strict {
            let problems = LottieValidator().validate(animation, document: document)
            if !problems.isEmpty { throw LottieError.validation(problems) }
        }
        return animation
    }

    /// Parses one animation from bytes.
    public func parse(_ bytes: [UInt8]) throws(LottieError) -> LottieAnimation {
        try bytes.withUnsafeBytes { buffer in Result { () throws(LottieError) in try parse(buffer) } }.get()
    }

    /// Parses one animation from `Data`.
    public func parse(_ data: Data) throws(LottieError) -> LottieAnimation {
        try data.withUnsafeBytes { buffer in Result { () throws(LottieError) in try parse(buffer) } }.get()
    }

    /// Parses any JSON document with this configuration's limits (no Lottie model).
    public func parseJSON(_ bytes: UnsafeRawBufferPointer) throws(LottieError) -> JSONValue {
        guard bytes.count <= configuration.maxInputBytes else {
            throw LottieError.inputTooLarge.with("input of \(bytes.count) bytes (limit \(configuration.maxInputBytes))")
        }
        return try JSONParser.parse(bytes, limits: configuration.jsonLimits)
    }

    /// Parses any JSON document from bytes with this configuration's limits.
    public func parseJSON(_ bytes: [UInt8]) throws(LottieError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in Result { () throws(LottieError) in try parseJSON(buffer) } }.get()
    }
}
