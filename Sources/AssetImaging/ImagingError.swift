/// Why a transform could not be made: a code (compare with `==` against the static values) and a
/// message.
///
/// Decoding failures of the source stay `CodecError`s (corrupt, truncated, unsupported, tooLarge);
/// this error covers the transform itself, the limits on its output and the encoders.
public struct ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case invalidTransform
        case outputTooLarge
        case unsupportedFormat
        case encodeFailed
        case colorConversionFailed
        case overloaded
        case notAnAnimation
        case decodeFailed
    }

    private let code: Code
    /// What went wrong, in words fit for an error response.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A transform that cannot be made as written: an unknown key or value, a size of 0 or beyond
    /// the limit, a quality outside 1...100.
    public static let invalidTransform = ImagingError(.invalidTransform, "invalid transform")
    /// The output would exceed a configured limit (pixels, side, encoded bytes).
    public static let outputTooLarge = ImagingError(.outputTooLarge, "output too large")
    /// An output format that cannot be written (or an encoder that is missing).
    public static let unsupportedFormat = ImagingError(.unsupportedFormat, "unsupported output format")
    /// The encoder failed.
    public static let encodeFailed = ImagingError(.encodeFailed, "encoding failed")
    /// The embedded ICC profile could not be applied.
    public static let colorConversionFailed = ImagingError(.colorConversionFailed, "colour conversion failed")

    /// Too many transforms are running and waiting: the caller may try again later.
    public static let overloaded = ImagingError(.overloaded, "too many transforms are running and waiting")

    /// A transform with a frame (``ImageTransform/frame``) of a source that is no animation: a
    /// still image, or bytes of no moving kind that can be rendered.
    public static let notAnAnimation = ImagingError(.notAnAnimation, "the source is not an animation")

    /// The worker process that decodes the source crashed, ran past its time or memory, or could
    /// not be started (``ImageTransformJob``, ``ImageDecodeJob``): the decoder failed, not
    /// necessarily the source; nothing is cached, and the next request gets a new worker.
    public static let decodeFailed = ImagingError(.decodeFailed, "the decoder's worker process failed")
    static func decodeFailed(_ message: String) -> ImagingError { ImagingError(.decodeFailed, message) }

    /// The error whose ``shortDescription`` is `code`, with `message` (an error that crossed a
    /// process boundary as text); nil for a code this type does not have.
    public init?(code: String, message: String) {
        guard let known = Code(rawValue: code) else { return nil }
        self.init(known, message)
    }

    static func invalidTransform(_ message: String) -> ImagingError { ImagingError(.invalidTransform, message) }
    /// An invalid transform with its reason, for callers that parse transform text of their own
    /// (a preset definition, a URL's path form).
    public static func invalidTransformText(_ message: String) -> ImagingError { ImagingError(.invalidTransform, message) }
    static func outputTooLarge(_ message: String) -> ImagingError { ImagingError(.outputTooLarge, message) }
    static func unsupportedFormat(_ message: String) -> ImagingError { ImagingError(.unsupportedFormat, message) }
    static func encodeFailed(_ message: String) -> ImagingError { ImagingError(.encodeFailed, message) }
    static func colorConversionFailed(_ message: String) -> ImagingError { ImagingError(.colorConversionFailed, message) }
    /// A source that is no animation, with what it is instead, for the code that tells what a
    /// source of a frame is.
    public static func notAnAnimation(_ message: String) -> ImagingError { ImagingError(.notAnAnimation, message) }

    /// The code alone, fit for a metric label or a JSON `code` field: `invalidTransform`,
    /// `outputTooLarge`, `unsupportedFormat`, `encodeFailed`, `colorConversionFailed`, `overloaded`,
    /// `notAnAnimation` or `decodeFailed`.
    public var shortDescription: String { code.rawValue }

    /// The code and the message.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are; the message is not compared.
    public static func == (lhs: ImagingError, rhs: ImagingError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code alone, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
