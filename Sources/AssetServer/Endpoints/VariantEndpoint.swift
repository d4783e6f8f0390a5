import AssetCodecs
import AssetImaging
import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore

/// `GET|HEAD /v1/image` with a transform (query form or path form, see ``VariantTarget``): the
/// encoded variant through ``ImageUtil/variant(for:)`` — one cache, one loader, one transform for
/// concurrent requests — with `Content-Type`, a strong `ETag` of the variant's key, the source's
/// `Last-Modified`, `Cache-Control` and `Expires` with an `Age`, and `Vary: Accept` for
/// `format=auto`.
///
/// - A fresh served variant in memory answers without a load (``ServedVariant``); with a derived
///   store, a source this node has not stored whose record there is fresh answers from the store
///   (``ImageUtil/storedVariant(for:transform:accepting:options:headers:)``); otherwise the
///   source goes through the loader (fresh, revalidated or fetched), which names the variant, and a
///   conditional request is answered 304 before the variant is made.
/// - Making waits at most ``AssetServer/ImageService/transformTimeout`` (503
///   `transform_timeout`); a full transform queue is 503 `overloaded`. Both carry `Retry-After`.
/// - Every refusal is counted by its code in `assetpipe_image_refusals_total`.
struct VariantEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest, target: VariantTarget) async throws -> Reply {
        let service = context.configuration.images
        let transform = target.transform
        try AssetTarget.checkScheme(target.source)
        let accepted: [OutputFormat]? = transform.format == .auto ? AcceptedImageFormats.parse(incoming.headers[.accept]) : nil
        let sourceKey = CacheKeyMemo.shared.key(for: target.source)
        let memoryKey = ServedVariant.memoryKey(sourceKey: sourceKey, transform: transform, accepted: accepted)
        // A request's own lower pixel limit is checked against the source before any cached copy
        // answers it (below): a variant made under the server's limit is no answer to it.
        let askedPixels = try incoming.positiveInt("maxPixels")
        let hot = askedPixels == nil ? context.manager.object(ServedVariant.self, forKey: memoryKey, kind: .image) : nil
        if !incoming.hasCacheDirectives, let hot, hot.isFresh(at: context.now) {
            context.metrics.recordVariantLookup("memory")
            return hot.reply(to: incoming, now: context.now, cacheStatus: "memory")
        }
        // a frame or a preview of a video: read by range through the chunk store, never loaded whole
        if transform.frame != nil || transform.animate, let reply = try await VideoFrameEndpoint(context: context).answer(
            incoming, target: target, accepted: accepted, memoryKey: memoryKey, hot: hot, askedPixels: askedPixels)
        {
            return reply
        }
        var request = AssetRequest(url: try AssetRequest.location(target.source), kind: .image)
        request.headers = ClientDirectives.cacheDirectives(of: incoming)
        var options = ImageUtil.Options()
        options.pixelBudget = service.maxSourcePixels
        // a source this node has not seen, still fresh by its record in the derived store, whose
        // variant is there: answered with no origin request and no transform
        let shared = askedPixels == nil
            ? await context.images.storedVariant(
                for: request.url, transform: transform, accepting: accepted, options: options, headers: request.headers)
            : nil
        let response: AssetResponse
        let named: VariantRequest
        if let shared {
            (response, named) = (shared.request.source, shared.request)
        } else {
            response = try await context.load(request)
            if let askedPixels {
                options.pixelBudget = min(askedPixels, service.maxSourcePixels)
                if transform.frame == nil { try await checkSourcePixels(of: response, against: options.pixelBudget) }
            }
            named = try await context.images.variantRequest(source: response, transform: transform, accepting: accepted, options: options)
        }
        let stored = response.metadata?.http.map(StoredResponse.init)
        let now = context.now
        let cacheStatus = ServerContext.cacheStatus(of: response.outcome)
        // the same source version as the served copy: its freshness renewed, nothing made
        if let hot, hot.eTag == named.entityTag, let stored {
            let refreshed = hot.refreshed(stored: stored, policy: context.policy, nodeName: context.configuration.nodeName)
            context.manager.setObject(refreshed, forKey: memoryKey, kind: .image, cost: refreshed.cost)
            context.metrics.recordVariantLookup("memory")
            return refreshed.reply(to: incoming, now: now, cacheStatus: cacheStatus == "revalidated" ? "revalidated" : "memory")
        }
        let headers = stored?.headers ?? response.headers
        let lastModified = headers["Last-Modified"]
        // a client that holds this very variant needs no transform
        let conditions = incoming.conditions
        if !conditions.isEmpty {
            let outcome = conditions.evaluate(eTag: named.entityTag, lastModified: lastModified, now: now)
            if outcome != .proceed {
                let fields = Self.fields(of: named, image: nil, headers: headers)
                return .empty(outcome == .notModified ? .notModified : .preconditionFailed, fields: fields)
            }
        }
        if shared == nil, context.images.cachedVariant(for: named) == nil,
            let stored = try await storedLargeVariant(named, incoming: incoming, headers: headers, lastModified: lastModified, now: now)
        {
            context.metrics.recordVariantLookup("disk")
            return stored
        }
        let variant: ImageVariant
        if let shared {
            variant = shared.variant
        } else {
            variant = try await make(named, timeout: service.transformTimeout, retryAfter: service.retryAfterSeconds)
        }
        context.metrics.recordVariantLookup(variant.origin == .transformed ? "miss" : variant.origin.rawValue)
        var fields = Self.fields(of: named, image: (variant.format, variant.width, variant.height), headers: headers)
        let body = ByteBuffer(bytes: variant.data)
        let status = variant.origin == .transformed ? "miss" : variant.origin.rawValue
        if let stored, variant.data.count <= context.configuration.memoryAssetLimit, !stored.cacheControl.noStore {
            let served = ServedVariant(
                body: body, fields: fields, eTag: named.entityTag, lastModified: lastModified, stored: stored,
                policy: context.policy, nodeName: context.configuration.nodeName)
            context.manager.setObject(served, forKey: memoryKey, kind: .image, cost: served.cost)
            return served.reply(to: incoming, now: now, cacheStatus: status)
        }
        fields[.xCache] = status
        if let stored { fields[.age] = HotFreshness(stored: stored, policy: context.policy).ageField(at: now) }
        return ServedVariant.reply(to: incoming, fields: fields, body: body, eTag: named.entityTag, lastModified: lastModified, now: now)
    }

    /// Throws `CodecError.tooLarge` when the image source declares more pixels than `budget`: read
    /// from its header, so that no cached variant (made under a larger limit) answers a request
    /// whose own limit refuses the source.
    private func checkSourcePixels(of response: AssetResponse, against budget: Int) async throws {
        let data = try await context.manager.loader.data(for: response)
        let decoder = ImageDecoder(configuration: .init(pixelBudget: budget, maxInputBytes: max(data.count, 1)))
        _ = try await context.manager.runIO { try decoder.header(of: data) }
    }

    /// The reply from the disk cache's derived entry of a variant larger than the memory asset
    /// limit, sent from its file with `sendfile` and never read into memory; nil when there is no
    /// such entry (smaller variants are read once and answered from memory afterwards).
    private func storedLargeVariant(
        _ named: VariantRequest, incoming: IncomingRequest, headers: HeaderFields, lastModified: String?, now: Date
    ) async throws -> Reply? {
        let disk = context.manager.diskCache
        let limit = Int64(context.configuration.memoryAssetLimit)
        let key = named.key
        guard let (file, contentType) = try await context.manager.runIO({ () -> (DiskCache.DataFile, String)? in
            guard let metadata = try disk.metadata(forKey: key), metadata.size > limit, let contentType = metadata.contentType,
                let file = try disk.openData(forKey: key), file.size == metadata.size
            else { return nil }
            return (file, contentType)
        }), let facts = VariantKey.facts(ofContentType: contentType) else { return nil }
        var fields = Self.fields(of: named, image: facts, headers: headers)
        fields[.xCache] = "disk"
        if let stored = named.source.metadata?.http.map(StoredResponse.init) {
            fields[.age] = HotFreshness(stored: stored, policy: context.policy).ageField(at: now)
        }
        let pump = incoming.pump
        var reply = Reply(status: .ok, fields: fields, length: file.size, pump: pump) { writer in
            let base = file.dataOffset
            try await pump.sendFile(base..<(base + file.size), descriptor: { try file.duplicateDescriptor() }, to: &writer)
        }
        reply.cacheStatus = "disk"
        return reply
    }

    /// The fields of a variant's answer: its validators and freshness (the source's), `Vary` for
    /// `format=auto`, and with `image` its type and size (a 304 has none of those).
    static func fields(
        of named: VariantRequest, image: (format: OutputFormat, width: Int, height: Int)?, headers: HeaderFields
    ) -> HTTPFields {
        var fields = HTTPFields()
        if let image { fields[.contentType] = image.format.mediaType }
        fields[.eTag] = named.entityTag
        fields[.lastModified] = headers["Last-Modified"]
        ServedVariant.setFreshnessFields(&fields, from: headers)
        if named.dependsOnAcceptedFormats { fields[.vary] = "Accept" }
        if let image {
            fields[.xImageWidth] = String(image.width)
            fields[.xImageHeight] = String(image.height)
        }
        return fields
    }

    /// The variant, made within `timeout`: 503 `transform_timeout` after it (the work goes on for
    /// the others waiting, and for the cache).
    private func make(_ named: VariantRequest, timeout: Duration, retryAfter: Int) async throws -> ImageVariant {
        let images = context.images
        do {
            return try await Deadline.run(within: timeout) { try await images.variant(for: named) }
        } catch let error as AssetServerError where error.shortDescription == "timeout" {
            throw AssetServerError.transformTimeout(retryAfter: retryAfter)
        }
    }
}
