/// The one error of the AssetLottie module: a code, a message, where it happened, and, for
/// strict validation, every problem found.
///
/// Compare with the static members (`error == .depthLimitExceeded`): equality looks at the code only.
public struct LottieError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case inputTooLarge
        case depthLimitExceeded
        case stringTooLong
        case numberTooLong
        case numberOutOfRange
        case layerLimitExceeded
        case unexpectedEnd
        case unexpectedCharacter
        case invalidNumber
        case invalidString
        case invalidUTF8
        case trailingData
        case notAnAnimation
        case validationFailed
        case invalidArchive
        case archiveLimitExceeded
        case invalidCompressedData
        case decompressedTooLarge
        case animationNotFound
        case unreadableFile
    }

    private var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The byte offset in the input where the problem was found, when there is one.
    public var offset: Int?
    /// The JSON path (`$.layers[3].ks`) of the problem, when there is one.
    public var path: String?
    /// For `validationFailed`: every problem strict validation found.
    public var problems: [LottieProblem]
    /// The error of a lower layer that caused this one, when one is kept.
    ///
    /// The readers of this module keep none: they put the lower layer's words (ZIPFoundation's, for
    /// a deflate stream) in ``message`` and leave this `nil`.
    public var underlying: (any Error & Sendable)?

    private init(_ code: Code, _ message: String = "", offset: Int? = nil, path: String? = nil,
                 problems: [LottieProblem] = [], underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message.isEmpty ? code.rawValue : message
        self.offset = offset
        self.path = path
        self.problems = problems
        self.underlying = underlying
    }

    /// A short, stable name of the code, fit for metric labels and `--json` output.
    public var shortDescription: String { code.rawValue }

    /// The code, the message, the path and the byte offset when known, then the first 20
    /// problems, one per line, and how many more there are.
    public var description: String {
        var text = "LottieError.\(code.rawValue): \(message)"
        if let path { text += " at \(path)" }
        if let offset { text += " (byte \(offset))" }
        for problem in problems.prefix(20) { text += "\n  \(problem.path): \(problem.message)" }
        if problems.count > 20 { text += "\n  ... \(problems.count - 20) more" }
        return text
    }

    /// Errors are equal when their codes are; the message, the location and the problems are not
    /// compared.
    public static func == (lhs: LottieError, rhs: LottieError) -> Bool { lhs.code == rhs.code }

    /// The input is larger than `Configuration.maxInputBytes`.
    public static let inputTooLarge = LottieError(.inputTooLarge)
    /// Arrays and objects nest deeper than `Configuration.maxDepth`.
    public static let depthLimitExceeded = LottieError(.depthLimitExceeded)
    /// A string is longer than `Configuration.maxStringBytes`.
    public static let stringTooLong = LottieError(.stringTooLong)
    /// A number literal is longer than `Configuration.maxNumberLength`.
    public static let numberTooLong = LottieError(.numberTooLong)
    /// A number does not fit a finite `Double` (`1e400`).
    public static let numberOutOfRange = LottieError(.numberOutOfRange)
    /// More layers (all compositions together) than `Configuration.maxLayers`.
    public static let layerLimitExceeded = LottieError(.layerLimitExceeded)
    /// The input ends inside a value.
    public static let unexpectedEnd = LottieError(.unexpectedEnd)
    /// A byte that JSON does not allow here.
    public static let unexpectedCharacter = LottieError(.unexpectedCharacter)
    /// A malformed number (`01`, `1.`, `-`, `1e`).
    public static let invalidNumber = LottieError(.invalidNumber)
    /// A malformed string (control character, bad escape, no closing quote).
    public static let invalidString = LottieError(.invalidString)
    /// A string's bytes are not valid UTF-8.
    public static let invalidUTF8 = LottieError(.invalidUTF8)
    /// Bytes other than white space after the top-level value.
    public static let trailingData = LottieError(.trailingData)
    /// Valid JSON, but its top level is not an object.
    public static let notAnAnimation = LottieError(.notAnAnimation)
    /// Strict validation found problems (see `problems`).
    public static let validationFailed = LottieError(.validationFailed)
    /// A dotLottie archive that cannot be read (not a zip, no animation, bad manifest).
    public static let invalidArchive = LottieError(.invalidArchive)
    /// An archive with more entries, or larger entries, than the configuration allows.
    public static let archiveLimitExceeded = LottieError(.archiveLimitExceeded)
    /// A gzip stream that is corrupt, truncated, or fails its checksum.
    public static let invalidCompressedData = LottieError(.invalidCompressedData)
    /// Decompression would produce more than the configured number of bytes.
    public static let decompressedTooLarge = LottieError(.decompressedTooLarge)
    /// A dotLottie manifest names an animation that the archive does not hold.
    public static let animationNotFound = LottieError(.animationNotFound)
    /// A file that cannot be opened or read.
    public static let unreadableFile = LottieError(.unreadableFile)

    /// This error with a message and a location.
    func with(_ message: String, offset: Int? = nil, path: String? = nil,
              underlying: (any Error & Sendable)? = nil) -> LottieError {
        var copy = self
        copy.message = message
        copy.offset = offset ?? self.offset
        copy.path = path ?? self.path
        copy.underlying = underlying ?? self.underlying
        return copy
    }

    /// `validationFailed` carrying `problems`.
    static func validation(_ problems: [LottieProblem]) -> LottieError {
        LottieError(.validationFailed, "strict validation found \(problems.count) problem(s)",
                    path: problems.first?.path, problems: problems)
    }
}
