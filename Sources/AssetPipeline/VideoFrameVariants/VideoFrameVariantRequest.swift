import AssetImaging
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A variant of a video's frame named but not made yet (``VideoFrameVariants/variantRequest(for:transform:accepting:options:)``):
/// the version of the video its head was read from, and the variant's key.
///
/// The key is a ``VariantKey`` over the video's cache key and the validator of the version the
/// chunk store (or a whole copy in the disk cache) holds: the same key a variant of the same
/// version loaded whole has, so the two ways of reading share their variants, and a changed video
/// (a new validator, its chunks dropped) names another variant.
public struct VideoFrameVariantRequest: Sendable {
    /// The video's URL, as given.
    public let url: String
    /// The transform asked for; its frame names the time.
    public let transform: ImageTransform
    /// The formats the caller takes, for `format=auto` (nil: the processor's default, PNG or JPEG).
    public let accepted: [OutputFormat]?
    /// What the origin said of the version read: length, validators, content type, the exchange
    /// (its `Cache-Control`, `Expires` and date give the variant's freshness).
    public let resource: ChunkRecord.ResourceInfo
    /// The version's validator (`etag:...` or `lm:...`); nil when the origin gave none, and then
    /// the variant is made for each request and never stored.
    public let validator: String?
    /// The derived entry's key (``VariantKey``).
    public let key: String
    /// What reading the head of the video cost (nothing when the stored chunks are fresh).
    public let statistics: VideoReadStatistics
    let options: ImageUtil.Options

    /// A strong entity tag of the variant: a checksum of its key, as ``VariantRequest/entityTag``.
    public var entityTag: String {
        let checksum = BytesChecksum.string(of: Array(key.utf8))
        return "\"v-" + checksum.drop { $0 != ":" }.dropFirst() + "\""
    }

    /// Whether the variant's format depends on the caller's accepted formats (`Vary: Accept`).
    public var dependsOnAcceptedFormats: Bool {
        if case .auto = transform.format { return accepted != nil }
        return false
    }

    /// The validator of a version: its `ETag` (strong or weak, as sent), else its `Last-Modified`.
    static func validator(of resource: ChunkRecord.ResourceInfo) -> String? {
        if let tag = resource.eTag { return "etag:" + tag }
        if let date = resource.lastModified { return "lm:" + date }
        return nil
    }
}
