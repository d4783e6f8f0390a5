/// Which frame of a video: the first, the first at or after a time, or the first at or after a
/// fraction of the duration. A time picks the frame `ffmpeg -ss T -i FILE -frames:v 1` picks.
public enum VideoFrameTime: Sendable, Hashable, CustomStringConvertible {
    /// The first frame (a key frame).
    case first
    /// The first frame at or after this many seconds from the start (at least 0, below the
    /// duration).
    case seconds(Double)
    /// The first frame at or after this fraction of the duration (at least 0, below 1).
    case progress(Double)

    /// `first`, `2.5s` or `50%`.
    public var description: String {
        switch self {
        case .first: "first"
        case .seconds(let seconds): "\(seconds)s"
        case .progress(let progress): "\(progress * 100)%"
        }
    }
}

/// The size of a video frame: the frame's own (after the container's rotation), a width or a
/// height with the other following the stored aspect ratio, or both. Scaled with swscale's
/// bicubic filter, as `ffmpeg -vf scale=W:H` does.
public struct VideoFrameSize: Sendable, Hashable {
    /// The width in pixels, or nil to follow the height (or the frame's own).
    public var width: Int?
    /// The height in pixels, or nil to follow the width (or the frame's own).
    public var height: Int?

    /// A size; leave both nil for the frame's own.
    public init(width: Int? = nil, height: Int? = nil) {
        self.width = width
        self.height = height
    }

    /// The frame's own size.
    public static let natural = VideoFrameSize()
}
