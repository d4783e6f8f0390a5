#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a still frame is taken from: a video (FFmpeg, through `VideoUtil`'s ranges) or a Lottie
/// animation (rlottie, through `LottieUtil`). The faces that take a frame of any source
/// (`assetpipe convert --frame`) ask here first.
public enum FrameSourceKind: Sendable, Hashable {
    /// An MP4/QuickTime or Matroska/WebM video.
    case video
    /// A Lottie animation: JSON, a dotLottie archive or a `.tgs` sticker.
    case animation

    /// The kind the first bytes of a source show: `ftyp` at offset 4 (MP4, QuickTime) or the EBML
    /// magic `1A 45 DF A3` (Matroska, WebM) is a video, anything else is taken as an animation
    /// (whose parser refuses what is not one).
    public init(prefix bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        if head.count >= 8, head[4..<8].elementsEqual("ftyp".utf8) {
            self = .video
        } else if head.count >= 4, head[0..<4].elementsEqual([0x1A, 0x45, 0xDF, 0xA3]) {
            self = .video
        } else {
            self = .animation
        }
    }

    /// The kind a URL's path extension names (`.mp4`, `.m4v`, `.mov`, `.webm`, `.mkv`: a video;
    /// `.json`, `.lottie`, `.tgs`: an animation), or nil when it names none (then the bytes tell).
    public init?(pathExtensionOf url: URL) {
        switch url.pathExtension.lowercased() {
        case "mp4", "m4v", "mov", "webm", "mkv", "3gp": self = .video
        case "json", "lottie", "tgs": self = .animation
        default: return nil
        }
    }
}
