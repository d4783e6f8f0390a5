import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import Synchronization

/// The answers that need no I/O, no task and no lock beyond the memory cache's: a `GET` or `HEAD`
/// of `/v1/asset` (or, in reverse-proxy mode, of an origin path, or of an image variant) whose body
/// is in memory and fresh, asked without cache directives, conditional fields or ranges. Anything
/// else is nil, and the async responder answers it. ``FastPathHandler`` asks it from the raw bytes
/// of a connection, ``HotPathHandler`` from the requests NIO's decoder has read.
///
/// What a request target names (its endpoint, asset URL, kind and memory key) is remembered per
/// target string, so a repeated request parses nothing.
struct HotPath: Sendable {
    let context: ServerContext
    let targets = HotTargets()
    let chunkHeads = HotChunkHeads()

    /// A response ready to be written (its head but `Age`, as fields and as HTTP/1.1 bytes), and what
    /// to count once it is.
    struct Hit {
        var status: Int
        var fields: HTTPFields
        var head: ByteBuffer
        var age: String
        /// Nil for `HEAD` and an empty body.
        var body: ByteBuffer?
        var meter: Meter
        var start: ContinuousClock.Instant

        /// What a hit counts in the metrics.
        enum Meter {
            case asset(AssetKind, ServerMetrics.RequestSeries)
            case variant(ServerMetrics.RequestSeries)
        }

        /// The head as HTTPTypes' response, with `Age`.
        var response: HTTPResponse {
            var fields = fields
            fields[.age] = age
            return HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: fields)
        }
    }

    /// The hit of a request that NIO's decoder has read.
    func answer(_ request: HTTPRequest) -> Hit? {
        guard request.method == .get || request.method == .head, let target = request.path, !Self.needsMore(request.headerFields)
        else { return nil }
        return answer(
            target: target, headOnly: request.method == .head, accept: { request.headerFields[.accept] },
            authorized: request.headerFields[.authorization] != nil)
    }

    /// The hit of a `GET` (or, when `headOnly`, `HEAD`) of `target` without cache directives,
    /// conditions or a range; nil when the responder must answer it. `accept` gives the request's
    /// `Accept`, read only for an image variant.
    func answer(target: String, headOnly: Bool, accept: () -> String?, authorized: Bool) -> Hit? {
        guard context.state.isReady else { return nil }
        let start = ContinuousClock.now
        guard let named = lookup(target) else { return nil }
        if let variantKeys = named.variantKeys {
            let key = variantKeys.count == 1 ? variantKeys[0] : variantKeys[AcceptedImageFormats.classIndex(accept())]
            guard let hot = context.manager.object(ServedVariant.self, forKey: key, kind: .image) else { return nil }
            let now = context.now
            guard hot.isFresh(at: now) else { return nil }
            let length = hot.body.readableBytes
            return Hit(
                status: 200, fields: hot.hotFields, head: hot.hotHead, age: hot.freshness.ageField(at: now),
                body: headOnly || length == 0 ? nil : hot.body, meter: .variant(named.series), start: start)
        }
        guard named.endpoint != .asset || named.kind != .video,
            let hot = context.manager.object(ServedAsset.self, forKey: named.memoryKey, kind: named.kind)
        else { return nil }
        let now = context.now
        guard hot.isFresh(at: now), hot.status == 200 || named.proxied else { return nil }
        if named.proxied && authorized { return nil }
        let length = hot.body.readableBytes
        let series = hot.status == 200 ? named.series : context.metrics.requestSeries(endpoint: named.endpoint.rawValue, status: hot.status)
        return Hit(
            status: hot.status, fields: named.proxied ? hot.hotProxiedFields : hot.hotAssetFields,
            head: named.proxied ? hot.hotProxiedHead : hot.hotAssetHead, age: hot.freshness.ageField(at: now),
            body: headOnly || length == 0 ? nil : hot.body, meter: .asset(named.kind, series), start: start)
    }

    /// Counts a hit once it is written.
    func finished(_ hit: Hit) {
        let metrics = context.metrics
        let seconds = (ContinuousClock.now - hit.start).seconds
        let sent = Int64(hit.body?.readableBytes ?? 0)
        switch hit.meter {
        case .asset(let kind, let series):
            metrics.recordLookup(layer: .memory, kind: kind, hit: true)
            metrics.recordRequest(series, seconds: seconds, bytesSent: sent)
        case .variant(let series):
            metrics.recordVariantLookup("memory")
            metrics.recordRequest(series, seconds: seconds, bytesSent: sent)
        }
    }

    /// What `target` names (remembered per target string).
    func lookup(_ target: String) -> HotTarget? {
        targets.lookup(target) { resolve(target) }
    }

    /// What `target` names when the hot path may answer it at all; nil otherwise.
    private func resolve(_ target: String) -> HotTarget? {
        guard target.utf8.count <= context.configuration.maxRequestTargetBytes else { return nil }
        let uri = URI(target)
        if uri.path == "/v1/image" || uri.path.hasPrefix("/v1/image/") {
            return resolveVariant(uri)
        }
        if uri.path == "/v1/asset" {
            let query = uri.queryParameters
            guard let parameter = query["url"], !parameter.isEmpty, query["kind"] == nil || query["kind"] == "video" else { return nil }
            let url = String(parameter)
            let entry = CacheKeyMemo.shared.entry(for: url)
            let kind = query["kind"] == "video" ? .video : entry.kind ?? .raw
            return HotTarget(
                endpoint: .asset, kind: kind, memoryKey: ServedAsset.memoryKey(for: entry.key), proxied: false,
                series: context.metrics.requestSeries(endpoint: ServerResponder.Endpoint.asset.rawValue, status: 200),
                url: url, cacheKey: entry.key)
        }
        guard let origin = context.origin, !uri.path.hasPrefix("/v1/"), uri.path != "/metrics", uri.path != "/healthz",
            uri.path != "/readyz"
        else { return nil }
        let url = origin.url(forTarget: target)
        let entry = CacheKeyMemo.shared.entry(for: url)
        return HotTarget(
            endpoint: .proxy, kind: entry.kind ?? .raw, memoryKey: ServedAsset.memoryKey(for: entry.key), proxied: true,
            series: context.metrics.requestSeries(endpoint: ServerResponder.Endpoint.proxy.rawValue, status: 200),
            url: url, cacheKey: entry.key)
    }

    /// Whether the request asks for more than a fresh whole body: cache directives, conditions,
    /// a range, or the connection's end.
    static func needsMore(_ fields: HTTPFields) -> Bool {
        fields[.cacheControl] != nil || fields[.pragma] != nil || fields[.range] != nil || fields[.ifNoneMatch] != nil
            || fields[.ifModifiedSince] != nil || fields[.ifMatch] != nil || fields[.ifUnmodifiedSince] != nil
            || fields[.ifRange] != nil || fields[.connection].map(Self.closes) == true
    }

    /// Whether a `Connection` value asks to close.
    static func closes(_ value: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingSpaces.lowercased() == "close" }
    }
}

/// What a request target names for the hot path.
struct HotTarget: Sendable {
    let endpoint: ServerResponder.Endpoint
    let kind: AssetKind
    let memoryKey: String
    let proxied: Bool
    /// The metrics of a 200 answer to it.
    let series: ServerMetrics.RequestSeries
    /// The asset's URL and cache key (empty for an image variant).
    var url = ""
    var cacheKey = ""
    /// For an image variant: the ``ServedVariant`` keys, one per class of `Accept`
    /// (``AcceptedImageFormats/classes``) or one when the format does not depend on it.
    var variantKeys: [String]? = nil
}

/// The hot path's request targets seen last (at most ``capacity``; the set starts again when full),
/// including those it may not answer (stored as nil).
final class HotTargets: Sendable {
    static let capacity = 16_384
    private let targets = Mutex<[String: HotTarget?]>([:])

    func lookup(_ target: String, _ resolve: () -> HotTarget?) -> HotTarget? {
        if let known = targets.withLock({ $0[target] }) { return known }
        let resolved = resolve()
        targets.withLock { targets in
            if targets.count >= Self.capacity { targets.removeAll(keepingCapacity: true) }
            targets[target] = .some(resolved)
        }
        return resolved
    }
}

extension HotPath {
    /// The served-variant keys of an image service target that parses and passes the signature
    /// check (checked once per target string); nil for anything else, which the responder answers.
    func resolveVariant(_ uri: URI) -> HotTarget? {
        let service = context.configuration.images
        let maxSide = service.util.processor.maxOutputDimension
        let target: VariantTarget
        if uri.path == "/v1/image" {
            let query = uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
            guard VariantTarget.isVariantQuery(query), !query.contains(where: { $0.name == "maxPixels" }),
                let parsed = try? VariantTarget(query: query, service: service, maxOutputDimension: maxSide)
            else { return nil }
            target = parsed
        } else {
            guard uri.query == nil || uri.query?.isEmpty == true,
                let parsed = try? VariantTarget(path: uri.path.dropFirst("/v1/image/".count), service: service, maxOutputDimension: maxSide)
            else { return nil }
            target = parsed
        }
        let sourceKey = CacheKeyMemo.shared.key(for: target.source)
        let keys: [String]
        if target.transform.format == .auto {
            keys = AcceptedImageFormats.classes.map { ServedVariant.memoryKey(sourceKey: sourceKey, transform: target.transform, accepted: $0) }
        } else {
            keys = [ServedVariant.memoryKey(sourceKey: sourceKey, transform: target.transform, accepted: nil)]
        }
        return HotTarget(
            endpoint: .image, kind: .image, memoryKey: keys[0], proxied: false,
            series: context.metrics.requestSeries(endpoint: ServerResponder.Endpoint.image.rawValue, status: 200),
            variantKeys: keys)
    }
}
