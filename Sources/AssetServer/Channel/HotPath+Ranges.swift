import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore
import Synchronization

extension HotPath {
    /// A range of a resource in the chunk store, ready to be sent from its chunk files.
    struct RangeHit {
        /// The whole head: status line, fields, `Content-Range`, `Content-Length`, `Age`, the empty line.
        var head: ByteBuffer
        var pieces: [VideoUtil.StoredRange.Piece]
        var series: ServerMetrics.RequestSeries
        var length: Int
        var start: ContinuousClock.Instant
    }

    /// The hot answer of a `GET` of `target` with the `Range` value `rangeField` (and no conditions
    /// or cache directives): when the target is an asset the responder serves through the chunk
    /// store (``ChunkedAssetReply``), its record is fresh, and every chunk of the range is stored.
    /// The chunk files are opened here, on the event loop, as nginx opens its files; the store
    /// counts the access as its async read does. Nil sends the request to the responder: a range
    /// it ignores or refuses (several ranges, past the end), a missing or stale chunk, any error.
    func answerRange(target: String, rangeField: String, authorized: Bool) -> RangeHit? {
        guard context.state.isReady, let range = ClientRange(header: rangeField) else { return nil }
        let start = ContinuousClock.now
        guard let named = lookup(target), named.variantKeys == nil, !named.cacheKey.isEmpty else { return nil }
        if named.proxied && authorized { return nil }
        guard servesAsChunks(named) else { return nil }
        guard let stored = try? context.video.storedRangeNow(address: named.url, range: ChunkedAssetReply.byteRange(range)),
            !stored.pieces.isEmpty
        else { return nil }
        let prefix = chunkHeads.head(cacheKey: named.cacheKey, info: stored.info, proxied: named.proxied) {
            makeRangeHead(stored.info, proxied: named.proxied)
        }
        var head = ByteBufferAllocator().buffer(capacity: prefix.bytes.readableBytes + 96)
        head.writeImmutableBuffer(prefix.bytes)
        head.writeStaticString("Content-Range: ")
        head.writeString(ClientRange.contentRange(stored.range, length: stored.totalLength))
        head.writeStaticString("\r\nContent-Length: ")
        head.writeString(String(stored.range.count))
        if let freshness = prefix.freshness {
            head.writeStaticString("\r\nAge: ")
            head.writeString(freshness.ageField(at: context.now))
        }
        head.writeStaticString("\r\n\r\n")
        context.metrics.recordLookup(layer: .chunks, kind: .video, hit: true)
        return RangeHit(
            head: head, pieces: stored.pieces,
            series: context.metrics.requestSeries(endpoint: named.endpoint.rawValue, status: 206),
            length: Int(stored.range.count), start: start)
    }

    /// Counts a range hit once it is written.
    func finished(_ hit: RangeHit) {
        context.metrics.recordRequest(hit.series, seconds: (ContinuousClock.now - hit.start).seconds, bytesSent: Int64(hit.length))
    }

    /// Whether the responder answers `named` through the chunk store (``ProxyEndpoint``,
    /// ``AssetEndpoint``): a video not cached whole on disk, or an asset found too large or already
    /// in the chunk store.
    private func servesAsChunks(_ named: HotTarget) -> Bool {
        if named.endpoint == .asset && named.kind == .video {
            return !context.manager.diskCache.contains(key: named.cacheKey)
        }
        return context.isServedAsChunks(cacheKey: named.cacheKey)
    }

    /// The head of a `206` of a resource but its range, length and age.
    private func makeRangeHead(_ info: ChunkRecord.ResourceInfo, proxied: Bool) -> HotChunkHeads.Head {
        var fields = ChunkedAssetReply.resourceFields(info)
        fields[.acceptRanges] = "bytes"
        fields[.xCache] = "chunks"
        if proxied { fields[.via] = "1.1 \(context.configuration.nodeName)" }
        fields[.server] = AssetPipelineVersion.productToken
        fields[.xNode] = context.configuration.nodeName
        let freshness = info.http.map { HotFreshness(stored: StoredResponse($0), policy: context.policy) }
        return HotChunkHeads.Head(info: info, bytes: HTTPHeadBytes.make(status: 206, fields: fields), freshness: freshness)
    }
}

/// The heads of ranges of the resources in the chunk store answered last, per cache key and form
/// (asset API or reverse proxy), each kept while the resource's description is the same (at most
/// ``capacity``; the set starts again when full).
final class HotChunkHeads: Sendable {
    static let capacity = 4_096

    struct Head: Sendable {
        let info: ChunkRecord.ResourceInfo
        /// The status line and fields but `Content-Range`, `Content-Length` and `Age`.
        let bytes: ByteBuffer
        /// For `Age`, when the origin's response is known.
        let freshness: HotFreshness?
    }

    private struct Key: Hashable {
        let cacheKey: String
        let proxied: Bool
    }

    private let heads = Mutex<[Key: Head]>([:])

    func head(cacheKey: String, info: ChunkRecord.ResourceInfo, proxied: Bool, make: () -> Head) -> Head {
        let key = Key(cacheKey: cacheKey, proxied: proxied)
        if let known = heads.withLock({ $0[key] }), known.info == info { return known }
        let head = make()
        heads.withLock { heads in
            if heads.count >= Self.capacity { heads.removeAll(keepingCapacity: true) }
            heads[key] = head
        }
        return head
    }
}
