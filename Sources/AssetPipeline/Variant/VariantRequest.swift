import AssetImaging
import AssetLoading
import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A variant named but not made yet: its loaded source, the source's validator and the variant's
/// cache key (``VariantKey``). A service answers a conditional request from it without making the
/// variant, and makes it with ``ImageUtil/variant(for:)``.
public struct VariantRequest: Sendable {
    /// The loader's answer for the source (fresh from the cache, revalidated or downloaded): its
    /// header fields and stored metadata say how long the variant stays fresh.
    public let source: AssetResponse
    /// The transform asked for.
    public let transform: ImageTransform
    /// The formats the caller takes, for `format=auto` (nil: keep the source's format).
    public let accepted: [OutputFormat]?
    /// The source's validator: `etag:...`, `lm:...` or `sum:...`.
    public let validator: String
    /// The derived entry's key.
    public let key: String
    let options: ImageUtil.Options
    /// The source's bytes when naming the variant already read them (a source without a validator).
    let sourceData: Data?

    /// A strong entity tag of the variant: a checksum of its key, so it names the source version,
    /// the transform, the format and the renderer's version (``RendererVersion``) without the
    /// variant being made. The same key gives the same bytes: another build of the code or of the
    /// libraries that make them has another key.
    public var entityTag: String {
        let checksum = BytesChecksum.string(of: Array(key.utf8))
        return "\"v-" + checksum.drop { $0 != ":" }.dropFirst() + "\""
    }

    /// Whether the variant's format depends on the caller's accepted formats (`format=auto` with a
    /// list): a response should then carry `Vary: Accept`.
    public var dependsOnAcceptedFormats: Bool {
        if case .auto = transform.format { return accepted != nil }
        return false
    }
}
