import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes

/// `GET|HEAD /v1/asset?url=U[&kind=K]`: the original bytes, from the cache or fetched through the
/// loader, with the origin's `Content-Type`, `ETag`, `Last-Modified` and `Cache-Control`, an `Age`,
/// and the client's conditional and single-range requests answered.
///
/// Video (`kind=video`, or a video file extension) and assets over the large-asset threshold are
/// served through the chunk store, so that a range of an uncached large file costs only its
/// chunks; a video already cached whole in the disk cache is served from there.
struct AssetEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let asset = try AssetTarget(incoming)
        if asset.kind == .video, !(await context.isCachedWhole(cacheKey: asset.cacheKey)) {
            return try await ChunkedAssetReply(context: context, url: asset.url).answer(incoming)
        }
        if context.isServedAsChunks(cacheKey: asset.cacheKey) {
            return try await ChunkedAssetReply(context: context, url: asset.url).answer(incoming)
        }
        var request = AssetRequest(url: try AssetRequest.location(asset.url), kind: asset.kind)
        request.headers = ClientDirectives.cacheDirectives(of: incoming)
        do {
            let representation = try await context.representation(
                for: request, cacheKey: asset.cacheKey, memoryKind: asset.kind, proxied: false,
                usesHotCopy: !incoming.hasCacheDirectives)
            return representation.reply(to: incoming, context: context)
        } catch let error as LoaderError where error == .tooLarge {
            // larger than the loader keeps whole: through the chunk store, a range costs its chunks
            context.largeAssets.insert(asset.cacheKey)
            return try await ChunkedAssetReply(context: context, url: asset.url).answer(incoming)
        }
    }
}

/// The asset a request names: its URL (http, https or s3 only), kind and cache key.
struct AssetTarget: Sendable {
    let url: String
    let kind: AssetKind
    let cacheKey: String

    init(_ incoming: IncomingRequest) throws {
        let url = try incoming.requiredParameter("url")
        try Self.checkScheme(url)
        if let name = incoming.parameter("kind") {
            guard let kind = AssetKind(rawValue: name) else {
                throw AssetServerError.invalidParameter("kind", "must be image, lottie, video or raw")
            }
            self.kind = kind
        } else {
            self.kind = CacheKeyMemo.shared.entry(for: url).kind ?? .raw
        }
        self.url = url
        self.cacheKey = CacheKeyMemo.shared.key(for: url)
    }

    /// Refuses a URL that is not an absolute `http`, `https` or `s3` URL (the loader checks an
    /// `s3://` bucket against the allowed ones).
    static func checkScheme(_ url: String) throws {
        let lowered = url.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") else {
            if !url.contains("://") { throw AssetServerError.invalidParameter("url", "must be an absolute http or https URL") }
            throw AssetServerError.from(LoaderError.unsupportedScheme)
        }
    }
}

/// The request fields a client may send to steer the cache (passed to the loader, which also
/// forwards them to the origin): `Cache-Control` and `Pragma`.
enum ClientDirectives {
    static func cacheDirectives(of incoming: IncomingRequest) -> HeaderFields {
        var fields = HeaderFields()
        for value in incoming.headers[values: .cacheControl] { fields.append(name: "Cache-Control", value: value) }
        for value in incoming.headers[values: .pragma] { fields.append(name: "Pragma", value: value) }
        return fields
    }
}

extension ServerContext {
    /// Whether an asset that is not a video goes through the chunk store: it was found too large
    /// for the loader, or the chunk store already holds some of it.
    func isServedAsChunks(cacheKey: String) -> Bool {
        largeAssets.contains(cacheKey) || manager.chunkStore.hasResource(forKey: cacheKey)
    }

    /// Whether the disk cache holds a whole entry for `cacheKey` (a video prefetched whole).
    func isCachedWhole(cacheKey: String) async -> Bool {
        let disk = manager.diskCache
        return (try? await manager.runIO { disk.contains(key: cacheKey) }) ?? false
    }
}
