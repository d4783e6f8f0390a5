/// Why an image could not be decoded: a code (compare with `==` against `.corrupt`,
/// `.truncated`, `.unsupported`, `.tooLarge`, `.bufferTooSmall`, `.noSuchPage`) and the library's
/// message.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case corrupt
        case truncated
        case unsupported
        case tooLarge
        case bufferTooSmall
        case noSuchPage
    }

    private let code: Code
    /// The decoder's or the library's own words.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The data is not a valid image of its format.
    public static let corrupt = CodecError(.corrupt, "corrupt image data")
    /// The data ends before the image does.
    public static let truncated = CodecError(.truncated, "truncated image data")
    /// A format, or a variant of one (12-bit or lossless JPEG), that the decoder does not handle.
    public static let unsupported = CodecError(.unsupported, "unsupported image format")
    /// The image or the input exceeds a configured limit.
    public static let tooLarge = CodecError(.tooLarge, "image too large")
    /// The caller's destination buffer cannot hold the decoded image.
    public static let bufferTooSmall = CodecError(.bufferTooSmall, "destination buffer too small")
    /// The page asked for is past the file's last image (a TIFF directory, a HEIF image), or the
    /// format has one image.
    public static let noSuchPage = CodecError(.noSuchPage, "no such page")

    static func corrupt(_ message: String) -> CodecError { CodecError(.corrupt, message) }
    static func truncated(_ message: String) -> CodecError { CodecError(.truncated, message) }
    static func unsupported(_ message: String) -> CodecError { CodecError(.unsupported, message) }
    static func tooLarge(_ message: String) -> CodecError { CodecError(.tooLarge, message) }
    static func bufferTooSmall(_ message: String) -> CodecError { CodecError(.bufferTooSmall, message) }
    static func noSuchPage(_ message: String) -> CodecError { CodecError(.noSuchPage, message) }

    /// The error whose ``shortDescription`` is `code`, with `message` (an error that crossed a
    /// process boundary as text); nil for a code this type does not have.
    public init?(code: String, message: String) {
        guard let known = Code(rawValue: code) else { return nil }
        self.init(known, message)
    }

    /// The code alone, fit for a metric label or a JSON `code` field: `corrupt`, `truncated`,
    /// `unsupported`, `tooLarge`, `bufferTooSmall` or `noSuchPage`.
    public var shortDescription: String { code.rawValue }

    /// The code and the message: `truncated: <message>`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are; the message is not compared.
    public static func == (lhs: CodecError, rhs: CodecError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code alone, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
