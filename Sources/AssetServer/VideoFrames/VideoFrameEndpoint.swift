import AssetImaging
import AssetLoading
import AssetPipeline
import Foundation
import HTTPTypes
import NIOCore

/// `GET|HEAD /v1/image?url=VIDEO&frame=...` or `animate=1` (and the path form): a variant of a
/// video's frame, or its animated preview, read
/// by range through the chunk store (``VideoFrameVariants``): the video's head, its index and the
/// packets of the frame, never the file whole and never bounded by `--max-source-bytes`.
///
/// - Taken for an `http`/`https` source whose URL does not name an image or an animation by its
///   extension; the video's first chunk decides (a source that is no video goes back to
///   ``VariantEndpoint``'s whole load, its chunk dropped).
/// - The answer is an image variant's: `ETag` of the variant's key (the chunk record's validator
///   in it), the video's `Last-Modified`, `Cache-Control`, `Expires` and `Age`, conditional
///   requests answered before the frame is decoded, and the served copy kept in memory while the
///   video's version is fresh.
struct VideoFrameEndpoint: Sendable {
    let context: ServerContext

    /// The answer, or nil when the source is not read as a video here.
    func answer(
        _ incoming: IncomingRequest, target: VariantTarget, accepted: [OutputFormat]?, memoryKey: String,
        hot: ServedVariant?, askedPixels: Int?
    ) async throws -> Reply? {
        let transform = target.transform
        let lowered = target.source.prefix(8).lowercased()
        guard transform.frame != nil || transform.animate, lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        switch KindSniffer.kind(ofPath: target.source) {
        case .image, .lottie: return nil
        default: break
        }
        let service = context.configuration.images
        var options = ImageUtil.Options()
        options.pixelBudget = min(askedPixels ?? service.maxSourcePixels, service.maxSourcePixels)
        guard let named = try await context.videoFrames.variantRequest(
            for: target.source, transform: transform, accepting: accepted, options: options)
        else { return nil }
        let now = context.now
        let stored = named.resource.http.map(StoredResponse.init)
        let lastModified = named.resource.lastModified
        // the same video version as the served copy: its freshness renewed, nothing made
        if askedPixels == nil, let hot, hot.eTag == named.entityTag, let stored {
            let refreshed = hot.refreshed(stored: stored, policy: context.policy, nodeName: context.configuration.nodeName)
            context.manager.setObject(refreshed, forKey: memoryKey, kind: .image, cost: refreshed.cost)
            context.metrics.recordVariantLookup("memory")
            return refreshed.reply(to: incoming, now: now, cacheStatus: "memory")
        }
        let conditions = incoming.conditions
        if !conditions.isEmpty, named.validator != nil {
            let outcome = conditions.evaluate(eTag: named.entityTag, lastModified: lastModified, now: now)
            if outcome != .proceed {
                let fields = Self.fields(of: named, image: nil, stored: stored)
                return .empty(outcome == .notModified ? .notModified : .preconditionFailed, fields: fields)
            }
        }
        let variant = try await make(named, timeout: service.transformTimeout, retryAfter: service.retryAfterSeconds)
        let status = variant.origin == .transformed ? "miss" : variant.origin.rawValue
        context.metrics.recordVariantLookup(status)
        var fields = Self.fields(of: named, image: (variant.format, variant.width, variant.height), stored: stored)
        let body = ByteBuffer(bytes: variant.data)
        if let stored, named.validator != nil, askedPixels == nil, variant.data.count <= context.configuration.memoryAssetLimit,
            !stored.cacheControl.noStore
        {
            let served = ServedVariant(
                body: body, fields: fields, eTag: named.entityTag, lastModified: lastModified, stored: stored,
                policy: context.policy, nodeName: context.configuration.nodeName)
            context.manager.setObject(served, forKey: memoryKey, kind: .image, cost: served.cost)
            return served.reply(to: incoming, now: now, cacheStatus: status)
        }
        fields[.xCache] = status
        if let stored { fields[.age] = HotFreshness(stored: stored, policy: context.policy).ageField(at: now) }
        return ServedVariant.reply(
            to: incoming, fields: fields, body: body, eTag: named.entityTag, lastModified: lastModified, now: now)
    }

    /// The fields of the answer: the variant's validators, the video's freshness, `Vary` for
    /// `format=auto`, and with `image` its type and size.
    static func fields(
        of named: VideoFrameVariantRequest, image: (format: OutputFormat, width: Int, height: Int)?, stored: StoredResponse?
    ) -> HTTPFields {
        var fields = HTTPFields()
        if let image { fields[.contentType] = image.format.mediaType }
        if named.validator != nil {
            fields[.eTag] = named.entityTag
            fields[.lastModified] = named.resource.lastModified
        }
        if let stored { ServedVariant.setFreshnessFields(&fields, from: stored.headers) }
        if named.dependsOnAcceptedFormats { fields[.vary] = "Accept" }
        if let image {
            fields[.xImageWidth] = String(image.width)
            fields[.xImageHeight] = String(image.height)
        }
        return fields
    }

    /// The variant within `timeout`: 503 `transform_timeout` after it (the work goes on for the
    /// others waiting, and for the cache).
    private func make(_ named: VideoFrameVariantRequest, timeout: Duration, retryAfter: Int) async throws -> ImageVariant {
        let frames = context.videoFrames
        do {
            return try await Deadline.run(within: timeout) { try await frames.variant(for: named) }
        } catch let error as AssetServerError where error.shortDescription == "timeout" {
            throw AssetServerError.transformTimeout(retryAfter: retryAfter)
        }
    }
}
