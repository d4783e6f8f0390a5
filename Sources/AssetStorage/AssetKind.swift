/// The kind of an asset: it picks the memory cache, the size limits and the statistics bucket.
public enum AssetKind: String, Sendable, Hashable, Codable, CaseIterable {
    case image
    case lottie
    case video
    /// Anything else: bytes or typed values stored as JSON.
    case raw
}
