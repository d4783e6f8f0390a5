import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import Synchronization

/// The answers that need no I/O, no task and no lock beyond the memory cache's: a `GET` or `HEAD`
/// of `/v1/asset` (or, in reverse-proxy mode, of an origin path) whose body is in memory and fresh,
/// asked without cache directives, conditional fields or ranges. Anything else is nil, and the
/// async responder answers it.
///
/// What a request target names (its endpoint, asset URL, kind and memory key) is remembered per
/// target string, so a repeated request parses nothing.
struct HotPath: Sendable {
    let context: ServerContext
    let targets = HotTargets()

    /// A response ready to be written, and what to count once it is.
    struct Answer {
        var head: HTTPResponse
        var body: ByteBuffer?
        var finished: () -> Void
    }

    func answer(_ request: HTTPRequest) -> Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
            context.state.isReady, !Self.needsMore(request.headerFields)
        else { return nil }
        let start = ContinuousClock.now
        guard let named = targets.lookup(target, { resolve(target, request.headerFields) }) else { return nil }
        if let variantKeys = named.variantKeys {
            return variant(request, keys: variantKeys, named: named, start: start)
        }
        guard let hot = context.manager.object(ServedAsset.self, forKey: named.memoryKey, kind: named.kind) else { return nil }
        let now = context.now
        guard hot.isFresh(at: now), hot.status == 200 || named.proxied else { return nil }
        if named.proxied && request.headerFields[.authorization] != nil { return nil }
        var fields = named.proxied ? hot.hotProxiedFields : hot.hotAssetFields
        fields[.age] = hot.freshness.ageField(at: now)
        let headOnly = request.method == .head
        let length = hot.body.readableBytes
        let metrics = context.metrics
        let kind = named.kind
        let series = hot.status == 200 ? named.series : metrics.requestSeries(endpoint: named.endpoint.rawValue, status: hot.status)
        return Answer(
            head: HTTPResponse(status: HTTPResponse.Status(code: hot.status), headerFields: fields),
            body: headOnly || length == 0 ? nil : hot.body,
            finished: {
                metrics.recordLookup(layer: .memory, kind: kind, hit: true)
                metrics.recordRequest(series, seconds: (ContinuousClock.now - start).seconds, bytesSent: headOnly ? 0 : Int64(length))
            })
    }

    /// The answer of a served variant in memory, fresh.
    private func variant(_ request: HTTPRequest, keys: [String], named: HotTarget, start: ContinuousClock.Instant) -> Answer? {
        let key = keys.count == 1 ? keys[0] : keys[AcceptedImageFormats.classIndex(request.headerFields[.accept])]
        guard let hot = context.manager.object(ServedVariant.self, forKey: key, kind: .image) else { return nil }
        let now = context.now
        guard hot.isFresh(at: now) else { return nil }
        var fields = hot.hotFields
        fields[.age] = hot.freshness.ageField(at: now)
        let headOnly = request.method == .head
        let length = hot.body.readableBytes
        let metrics = context.metrics
        let series = named.series
        return Answer(
            head: HTTPResponse(status: .ok, headerFields: fields),
            body: headOnly || length == 0 ? nil : hot.body,
            finished: {
                metrics.recordVariantLookup("memory")
                metrics.recordRequest(series, seconds: (ContinuousClock.now - start).seconds, bytesSent: headOnly ? 0 : Int64(length))
            })
    }

    /// What `target` names when the hot path may answer it at all; nil otherwise.
    private func resolve(_ target: String, _ fields: HTTPFields) -> HotTarget? {
        guard target.utf8.count <= context.configuration.maxRequestTargetBytes else { return nil }
        let uri = URI(target)
        if uri.path == "/v1/image" || uri.path.hasPrefix("/v1/image/") {
            return resolveVariant(uri)
        }
        if uri.path == "/v1/asset" {
            let query = uri.queryParameters
            guard let parameter = query["url"], !parameter.isEmpty, query["kind"] == nil else { return nil }
            let url = String(parameter)
            let entry = CacheKeyMemo.shared.entry(for: url)
            let kind = entry.kind ?? .raw
            guard kind != .video else { return nil }
            return HotTarget(
                endpoint: .asset, kind: kind, memoryKey: ServedAsset.memoryKey(for: entry.key), proxied: false,
                series: context.metrics.requestSeries(endpoint: ServerResponder.Endpoint.asset.rawValue, status: 200))
        }
        guard let origin = context.origin, !uri.path.hasPrefix("/v1/"), uri.path != "/metrics", uri.path != "/healthz",
            uri.path != "/readyz"
        else { return nil }
        let url = origin.url(forTarget: target)
        let entry = CacheKeyMemo.shared.entry(for: url)
        return HotTarget(
            endpoint: .proxy, kind: entry.kind ?? .raw, memoryKey: ServedAsset.memoryKey(for: entry.key), proxied: true,
            series: context.metrics.requestSeries(endpoint: ServerResponder.Endpoint.proxy.rawValue, status: 200))
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
