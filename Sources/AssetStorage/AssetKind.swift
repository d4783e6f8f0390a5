/// The kind of an asset: it picks the memory cache, the size limits and the statistics bucket.
public enum AssetKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A still image (PNG, JPEG): its bytes on disk, decoded bitmaps in memory.
    case image
    /// A Lottie animation: its JSON bytes on disk, parsed animations in memory.
    case lottie
    /// Video and streaming media (MP4, WebM, HLS and DASH parts), read by byte range.
    case video
    /// Anything else: bytes or typed values stored as JSON.
    case raw
}
