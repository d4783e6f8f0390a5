import AssetImaging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An encoded variant of a source image (``ImageUtil/variant(for:transform:accepting:options:)``):
/// its bytes, format and size, and what it was derived from.
public struct ImageVariant: Sendable, Hashable {
    /// The encoded bytes.
    public var data: Data
    /// Their format.
    public var format: OutputFormat
    /// The output width in pixels.
    public var width: Int
    /// The output height in pixels.
    public var height: Int
    /// The derived entry's cache key: the source's key and validator, the canonical transform and
    /// the format (see ``VariantKey``).
    public var key: String
    /// The source's validator the variant was made from: its `ETag`, else its `Last-Modified`,
    /// else a checksum of its bytes.
    public var sourceValidator: String
    /// Where the variant came from: memory, the disk cache, or a transform made now.
    public var origin: Origin

    /// Where a variant came from.
    public enum Origin: String, Sendable, Hashable {
        /// The image memory cache.
        case memory
        /// The disk cache (a derived entry).
        case disk
        /// Made by this call (or the call it was coalesced with).
        case transformed
        /// Read from the shared ``DerivedStore`` (and now in the disk cache too).
        case derivedStore
    }

    /// The media type, `image/webp`.
    public var mediaType: String { format.mediaType }

    /// The memory it costs in the image memory cache.
    var cost: Int { data.count + 256 }
}
