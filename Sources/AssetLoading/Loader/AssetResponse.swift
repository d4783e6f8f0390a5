import AssetStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer to an ``AssetRequest``: where it came from, its status and fields, and where its body is.
///
/// The body is not held in memory unless it could not be stored: read it with ``AssetLoader/data(for:)``.
public struct AssetResponse: Sendable {
    /// Where the body is.
    public enum Body: Sendable {
        /// The disk cache entry with this metadata (its key, size and checksum).
        case cacheEntry(CacheMetadata)
        /// A local file (`file://` URLs).
        case file(path: String, size: Int64)
        /// In memory: a response that may not be stored (`no-store`, `Vary: *`, or not storable),
        /// bounded by the kind's maximum body size.
        case data(Data)

        /// The cache key of a cache entry body.
        var cacheKey: String? {
            if case .cacheEntry(let metadata) = self { return metadata.key }
            return nil
        }
    }

    /// How long the load took, from the loader's clock.
    public struct Timings: Sendable, Hashable {
        /// When the load started.
        public var start: Date
        /// When the response head of the last exchange arrived, if there was one.
        public var responseHead: Date?
        /// When the load finished.
        public var end: Date

        /// `end - start` in seconds.
        public var duration: Double { self.end.timeIntervalSince(self.start) }
    }

    /// The URL asked for.
    public var url: String
    /// The cache key the answer is stored under: the request's key, or for a response that varies (`Vary`)
    /// the key of its variant (see ``AssetLoader/defaultCacheKey(for:)``).
    public var cacheKey: String
    /// The kind of asset the request asked for.
    public var kind: AssetKind
    /// Where the answer came from.
    public var outcome: LoadOutcome
    /// The status of the response represented (the stored one for cached answers; 200 for local files).
    public var status: Int
    /// The response header fields (the stored ones for cached answers).
    public var headers: HeaderFields
    /// Where the body is.
    public var body: Body
    /// Where the body may be kept: ``StoragePolicy/allowed`` for cache entries, what HTTP caching and
    /// the configuration's hook decided for downloads held in memory, ``StoragePolicy/memoryOnly`` for
    /// local files.
    public var storagePolicy: StoragePolicy
    /// The body's length in bytes.
    public var size: Int64
    /// Body bytes received from the network by this load (0 for cached answers and 304s).
    public var bytesReceived: Int64
    /// Network exchanges made, retries included (0 when the cache answered alone).
    public var attempts: Int
    /// When the load started, when the last response head arrived and when it finished.
    public var timings: Timings
    /// Which way the network exchange went (origin, tier, origin after a tier failure); nil when the
    /// cache answered alone.
    public var route: LoadRoute? = nil

    /// The disk cache metadata, when the body is a cache entry.
    public var metadata: CacheMetadata? {
        if case .cacheEntry(let metadata) = self.body { return metadata }
        return nil
    }
}
