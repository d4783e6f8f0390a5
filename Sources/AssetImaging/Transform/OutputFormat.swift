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
    /// GIF through cgif with our quantizer (at most 255 colours, Floyd-Steinberg dithered; alpha
    /// as one transparent index, under 128 transparent). An animated GIF or WebP source stays
    /// animated in it.
    case gif
    /// An H.264 MP4 through FFmpeg's libavcodec and libx264 (`yuv420p`, `+faststart`; no alpha:
    /// flattened onto the background; even sides), made of an animation only: an animated GIF or
    /// WebP, a Lottie animation or a video's preview. `format=auto` never picks it.
    case mp4

    /// The media type: `image/jpeg`, `image/png`, `image/webp`, `image/avif`, `image/gif`, `video/mp4`.
    public var mediaType: String { self == .mp4 ? "video/mp4" : "image/\(rawValue)" }

    /// The usual file extension, without the dot.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether the format stores an alpha channel (GIF: one transparent index).
    public var supportsAlpha: Bool { self != .jpeg && self != .mp4 }

    /// Whether the format holds an animation (animated WebP, GIF, MP4): an animated source made
    /// into it stays animated; into a still format it gives its first frame, as imgproxy does.
    public var supportsAnimation: Bool { self == .webp || self == .gif || self == .mp4 }

    /// Whether the format holds only animations (MP4): a still is not written in it.
    public var isMotionOnly: Bool { self == .mp4 }

    /// The format a file name's extension names (`.jpg`, `.jpeg`, `.png`, `.webp`, `.avif`, `.gif`, `.mp4`), or nil.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "gif": self = .gif
        case "mp4", "m4v": self = .mp4
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
        case "image/gif": self = .gif
        case "video/mp4": self = .mp4
        default: return nil
        }
    }

    /// The raw value.
    public var description: String { rawValue }
}
