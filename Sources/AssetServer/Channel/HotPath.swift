import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore

/// The answers that need no I/O, no task and no lock beyond the memory cache's: a `GET` or `HEAD`
/// of `/v1/asset` (or, in reverse-proxy mode, of an origin path) whose body is in memory and fresh,
/// asked without cache directives, conditional fields or ranges. Anything else is nil, and the
/// async responder answers it.
struct HotPath: Sendable {
    let context: ServerContext

    /// A response ready to be written, and what to count once it is.
    struct Answer {
        var head: HTTPResponse
        var body: ByteBuffer?
        var finished: () -> Void
    }

    func answer(_ request: HTTPRequest) -> Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
            target.utf8.count <= context.configuration.maxRequestTargetBytes, context.state.isReady,
            !Self.needsMore(request.headerFields)
        else { return nil }
        let start = ContinuousClock.now
        let uri = URI(target)
        let endpoint: ServerResponder.Endpoint
        let url: String
        let kind: AssetKind
        let proxied: Bool
        if uri.path == "/v1/asset" {
            guard let parameter = uri.queryParameters["url"], !parameter.isEmpty, uri.queryParameters["kind"] == nil else { return nil }
            url = String(parameter)
            kind = KindSniffer.kind(ofPath: url) ?? .raw
            guard kind != .video else { return nil }
            endpoint = .asset
            proxied = false
        } else if let origin = context.origin, !uri.path.hasPrefix("/v1/"), uri.path != "/metrics", uri.path != "/healthz", uri.path != "/readyz" {
            guard request.headerFields[.authorization] == nil else { return nil }
            url = origin.url(forTarget: target)
            kind = KindSniffer.kind(ofPath: url) ?? .raw
            endpoint = .proxy
            proxied = true
        } else {
            return nil
        }
        let key = ServedAsset.memoryKey(for: CacheKeyMemo.shared.key(for: url))
        guard let hot = context.manager.object(ServedAsset.self, forKey: key, kind: kind) else { return nil }
        let now = context.now
        guard hot.isFresh(at: now), hot.status == 200 || proxied else { return nil }
        var fields = proxied ? hot.proxiedFields : hot.assetFields
        let age = Int(min(hot.age(at: now), Double(CacheControl.maximumDeltaSeconds)))
        fields[.age] = String(age)
        fields[.xCache] = "memory"
        if hot.status == 200 { fields[.acceptRanges] = "bytes" }
        if proxied { fields[.via] = "1.1 \(context.configuration.nodeName)" }
        fields[.server] = context.configuration.nodeName
        fields[.xNode] = context.configuration.nodeName
        let length = hot.body.readableBytes
        fields[.contentLength] = String(length)
        let headOnly = request.method == .head
        let metrics = context.metrics
        return Answer(
            head: HTTPResponse(status: HTTPResponse.Status(code: hot.status), headerFields: fields),
            body: headOnly || length == 0 ? nil : hot.body,
            finished: {
                metrics.recordLookup(layer: .memory, kind: kind, hit: true)
                metrics.recordRequest(
                    endpoint: endpoint.rawValue, status: hot.status, seconds: (ContinuousClock.now - start).seconds,
                    bytesSent: headOnly ? 0 : Int64(length), cacheStatus: "memory")
            })
    }

    /// Whether the request asks for more than a fresh whole body: cache directives, conditions,
    /// a range, or the connection's end.
    static func needsMore(_ fields: HTTPFields) -> Bool {
        fields[.cacheControl] != nil || fields[.pragma] != nil || fields[.range] != nil || fields[.ifNoneMatch] != nil
            || fields[.ifModifiedSince] != nil || fields[.ifMatch] != nil || fields[.ifUnmodifiedSince] != nil
            || fields[.ifRange] != nil || fields[.connection]?.lowercased().contains("close") == true
    }
}
