#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An animation made ready for rlottie: the JSON it will read and the facts the renderer checks
/// before and after it reads it. Made by ``LottieFrameRenderer/prepare(_:)`` from a parsed model.
///
/// - **What rlottie sees**: the model written back by our own JSON writer (so never the bytes as
///   they arrived), numbers with an integral value written as integers (rlottie reads `w`, `h`,
///   `ty`, `ind`, `parent` and others only as integers), `v` a string (`"5.7.0"` when the file has
///   none: rlottie refuses a file without it, Lottie 1.0 made it optional), every image a canonical base64 `data:`
///   URL of a PNG or JPEG whose header passed the image limits, or nothing (`p` and `u` emptied),
///   so that rlottie never opens a file.
/// - **Spelled as rlottie reads it**: where rlottie 0.1's reading of valid JSON depends on its
///   spelling, the spelling that means what Lottie means: one member per key (the last value,
///   at the first key's position), each layer's `ddd` written (0 when absent, 1 when its `ks`
///   has `rx`, `ry` or `rz`) right before its `ks`, each stroke's dash array with one offset
///   entry, last; the composition's `op` later when a time remap names a time past it.
/// - **Sendable bytes**: a worker process can be handed ``json`` and the four facts and render
///   with ``init(validatedJSON:width:height:frameCount:rlottieFrameCount:)``, without the model.
public struct LottieRenderInput: Sendable, Hashable {
    /// The JSON rlottie reads (UTF-8, no NUL bytes).
    public let json: Data
    /// The composition's width (`w`, rounded when the file has a fraction): within the renderer's limits.
    public let width: Int
    /// The composition's height (`h`, rounded when the file has a fraction): within the renderer's limits.
    public let height: Int
    /// Frames from the in point to the out point: `op - ip`, each truncated toward zero.
    public let frameCount: Int
    /// Frames of the composition as rlottie reads it from ``json``: ``frameCount``, or more when
    /// ``LottieFrameRenderer/prepare(_:)`` lengthened it so that a time remap past its end is not
    /// cut there (frames past ``frameCount`` are never rendered). Checked against rlottie's reading.
    public let rlottieFrameCount: Int
    /// Image assets that were left out: external files, formats other than PNG and JPEG, payloads
    /// that do not decode or whose header cannot be read.
    public let omittedImageCount: Int

    /// An input from bytes that ``LottieFrameRenderer/prepare(_:)`` made, with the facts it found
    /// (for a worker process given them by its parent; `rlottieFrameCount` nil for `frameCount`).
    /// rlottie's own reading of `width`, `height` and `rlottieFrameCount` is still checked
    /// against these before a frame is rendered.
    public init(validatedJSON json: Data, width: Int, height: Int, frameCount: Int, rlottieFrameCount: Int? = nil) {
        self.init(json: json, width: width, height: height, frameCount: frameCount,
                  rlottieFrameCount: rlottieFrameCount ?? frameCount, omittedImageCount: 0)
    }

    init(json: Data, width: Int, height: Int, frameCount: Int, rlottieFrameCount: Int, omittedImageCount: Int) {
        self.json = json
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.rlottieFrameCount = rlottieFrameCount
        self.omittedImageCount = omittedImageCount
    }
}
