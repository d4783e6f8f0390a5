/// Why a frame was not rendered: a code (compare with `==` against the static members) and a
/// message for people.
///
/// Every check that can be made before rlottie runs is made first, so that `invalidSize`,
/// `sizeTooLarge`, `frameOutOfRange` and most `unsupported` errors never reach the library.
public struct LottieRenderError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case invalidSize
        case sizeTooLarge
        case frameOutOfRange
        case unsupported
        case renderFailed
    }

    private let code: Code
    /// What went wrong, for people.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A width or height that is not positive: the animation's `w`/`h` (missing, zero, negative,
    /// not finite) or the requested size.
    public static let invalidSize = LottieRenderError(.invalidSize, "invalid size")
    /// The animation's `w`/`h`, the requested size, or the embedded images exceed a configured limit.
    public static let sizeTooLarge = LottieRenderError(.sizeTooLarge, "size too large")
    /// A frame number outside `0..<frameCount`, or a progress outside `0...1`.
    public static let frameOutOfRange = LottieRenderError(.frameOutOfRange, "frame out of range")
    /// The animation cannot be rendered: it has no frames (`op <= ip`), a structure that makes
    /// renderers crash (a cycle of parents or precompositions, nesting past the limit) or stall
    /// (a path or mask coordinate past the limit), or rlottie refused it or read it otherwise
    /// than our parser did.
    public static let unsupported = LottieRenderError(.unsupported, "unsupported animation")
    /// rlottie failed while rendering (it threw: out of memory, an internal error).
    public static let renderFailed = LottieRenderError(.renderFailed, "render failed")

    static func invalidSize(_ message: String) -> LottieRenderError { LottieRenderError(.invalidSize, message) }
    static func sizeTooLarge(_ message: String) -> LottieRenderError { LottieRenderError(.sizeTooLarge, message) }
    static func frameOutOfRange(_ message: String) -> LottieRenderError { LottieRenderError(.frameOutOfRange, message) }
    static func unsupported(_ message: String) -> LottieRenderError { LottieRenderError(.unsupported, message) }
    static func renderFailed(_ message: String) -> LottieRenderError { LottieRenderError(.renderFailed, message) }

    /// The code alone, fit for a metric label or a JSON `code` field: `invalidSize`,
    /// `sizeTooLarge`, `frameOutOfRange`, `unsupported` or `renderFailed`.
    public var shortDescription: String { code.rawValue }

    /// The code and the message: `unsupported: <message>`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are; the message is not compared.
    public static func == (lhs: LottieRenderError, rhs: LottieRenderError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code alone, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
