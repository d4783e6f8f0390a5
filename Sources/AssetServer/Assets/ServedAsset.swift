import AssetLoading
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore

/// A small stored answer kept in the manager's memory cache of its kind (under
/// ``memoryKey(for:)``), so that a hot asset costs no disk read: the body, and what deciding its
/// freshness and writing its head need, computed once.
///
/// It mirrors one disk cache entry (its checksum) and is used only while that entry is fresh; a
/// stale one goes back through the loader, which revalidates the entry.
final class ServedAsset: Sendable {
    let checksum: String
    let status: Int
    let body: ByteBuffer
    let assetFields: HTTPFields
    let proxiedFields: HTTPFields
    /// The whole head of a memory hit but `Age`, for the event loop's hot path: the asset API's and
    /// the reverse proxy's (with `Via`).
    let hotAssetFields: HTTPFields
    let hotProxiedFields: HTTPFields
    /// The same two heads as HTTP/1.1 bytes (``HTTPHeadBytes``).
    let hotAssetHead: ByteBuffer
    let hotProxiedHead: ByteBuffer
    let eTag: String?
    let lastModified: String?
    /// When it stops being fresh.
    let freshness: HotFreshness

    init(metadata: CacheMetadata, stored: StoredResponse, body: ByteBuffer, policy: FreshnessPolicy, nodeName: String) {
        self.checksum = metadata.checksum
        self.status = stored.status
        self.body = body
        self.assetFields = PassedFields.asset(stored.headers)
        self.proxiedFields = PassedFields.proxied(stored.headers)
        func hot(_ base: HTTPFields, via: Bool) -> HTTPFields {
            var fields = base
            fields[.xCache] = "memory"
            if stored.status == 200 { fields[.acceptRanges] = "bytes" }
            if via { fields[.via] = "1.1 \(nodeName)" }
            fields[.server] = AssetPipelineVersion.productToken
            fields[.xNode] = nodeName
            fields[.contentLength] = String(body.readableBytes)
            return fields
        }
        self.hotAssetFields = hot(assetFields, via: false)
        self.hotProxiedFields = hot(proxiedFields, via: true)
        self.hotAssetHead = HTTPHeadBytes.make(status: stored.status, fields: hotAssetFields)
        self.hotProxiedHead = HTTPHeadBytes.make(status: stored.status, fields: hotProxiedFields)
        self.eTag = stored.eTag
        self.lastModified = stored.headers["Last-Modified"]
        self.freshness = HotFreshness(stored: stored, policy: policy)
    }

    /// The memory-cache key of a cache key's served body (apart from the decoded objects the utils
    /// keep under the cache key itself).
    static func memoryKey(for cacheKey: String) -> String { cacheKey + "\u{1F}served" }

    /// The current age in seconds.
    func age(at now: Date) -> Double { freshness.age(at: now) }

    /// Whether it may answer a request without request directives at `now`.
    func isFresh(at now: Date) -> Bool { freshness.isFresh(at: now) }

    /// The representation it answers with.
    func representation(proxied: Bool, now: Date, cacheStatus: String) -> Representation {
        Representation(
            status: status, fields: proxied ? proxiedFields : assetFields, eTag: eTag, lastModified: lastModified,
            length: Int64(body.readableBytes), source: .memory(body),
            age: Int(min(age(at: now), Double(CacheControl.maximumDeltaSeconds))), cacheStatus: cacheStatus)
    }

    /// Its memory cost: the body and about two kilobytes of fields and heads.
    var cost: Int { body.readableBytes + 2_048 }
}
