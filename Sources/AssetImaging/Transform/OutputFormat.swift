/// An encoded output format.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG through libjpeg-turbo (no alpha: flattened onto the background).
    case jpeg
    /// PNG through libpng (lossless; alpha kept).
    case png
    /// WebP through libwebp (lossy or lossless; alpha kept).
    case webp
    /// AVIF through libavif and libaom (alpha kept).
    case avif

    /// The media type: `image/jpeg`, `image/png`, `image/webp`, `image/avif`.
    public var mediaType: String { "image/\(rawValue)" }

    /// The usual file extension, without the dot.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether the format stores an alpha channel.
    public var supportsAlpha: Bool { self != .jpeg }

    /// The format a file name's extension names (`.jpg`, `.jpeg`, `.png`, `.webp`, `.avif`), or nil.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        default: return nil
        }
    }

    /// The format a media type names (`image/webp`), or nil.
    public init?(mediaType: String) {
        switch mediaType.lowercased() {
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/png": self = .png
        case "image/webp": self = .webp
        case "image/avif": self = .avif
        default: return nil
        }
    }

    /// The raw value.
    public var description: String { rawValue }
}
