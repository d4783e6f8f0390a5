import AssetImaging
import AssetStorage
import AssetVideoFrames

/// A storyboard named but not made yet (``VideoStoryboards/storyboardRequest(for:spec:format:)``):
/// the version of the video its head was read from, and the storyboard's key.
public struct VideoStoryboardRequest: Sendable {
    /// The video's URL, as given.
    public let url: String
    /// The tiles asked for.
    public let spec: VideoStoryboardSpec
    /// The sprite's format (JPEG or WebP).
    public let format: OutputFormat
    /// What the origin said of the version read: length, validators, the exchange (its
    /// `Cache-Control`, `Expires` and date are the storyboard's freshness).
    public let resource: ChunkRecord.ResourceInfo
    /// The version's validator (`etag:...` or `lm:...`); nil when the origin gave none.
    public let validator: String?
    /// The cache key.
    public let key: String
    /// What reading the head of the video cost.
    public let statistics: VideoReadStatistics

    /// A strong entity tag of the storyboard (a checksum of its key), the same for its sprite,
    /// VTT and JSON answers but for the suffix each adds.
    public var entityTag: String {
        let checksum = BytesChecksum.string(of: Array(key.utf8))
        return "\"s-" + checksum.drop { $0 != ":" }.dropFirst() + "\""
    }
}
