import AssetVideoFrames

/// The frame of a video that a frame spec (`0`, `50%`, `2.5s`) names.
extension VideoFrameTime {
    /// The frame of a video that a frame spec names: `0` is the first frame, `2.5s` a time and
    /// `50%` a position (`.progress(0.5)`); other frame numbers name nothing in a video.
    /// - Throws: `VideoFrameError.frameOutOfRange` for a frame number other than 0 (a video's frame
    ///   is a time or a position).
    public init(_ spec: FrameSpec) throws(VideoFrameError) {
        switch spec {
        case .number(0): self = .first
        case .number(let number):
            throw VideoFrameError(.frameOutOfRange, "a video's frame is a time (2.5s) or a position (50%), not frame \(number)")
        case .percent(let percent): self = .progress(percent / 100)
        case .seconds(let seconds): self = .seconds(seconds)
        }
    }
}
