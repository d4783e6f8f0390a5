import AssetLoading
import AssetPipeline
import AssetStorage
import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1

/// Reverse-proxy mode: any `GET`/`HEAD /path?query` outside the service's own paths is answered
/// from the cache or fetched from the origin at the same path, the manager's loader acting as a
/// shared cache (RFC 9111): `s-maxage`, `proxy-revalidate`, `private` not stored, `Authorization`
/// as 3.5 allows, `Vary`, `no-cache`, `must-understand`, and `Age` on every stored answer; redirects
/// and error statuses are passed on (and stored when cacheable). Client conditional and range
/// requests are answered from the stored response.
///
/// Other methods are passed through to the origin (with their bodies, up to the body limit), and a
/// non-error answer to one invalidates what it targets: the request URI and the same-origin
/// `Location` and `Content-Location` of the answer (RFC 9111 4.4).
struct ProxyEndpoint: Sendable {
    let context: ServerContext

    var via: String { "1.1 \(context.configuration.nodeName)" }

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        guard let origin = context.origin else { throw AssetServerError.notFound }
        let target = incoming.request.uri.string
        let url = origin.url(forTarget: target)
        let method = incoming.method
        if method == .get || method == .head {
            return try await ServerResponder.withDeadline(context) { try await self.cached(url: url, incoming: incoming) }
        }
        guard method != .connect else { throw AssetServerError.methodNotAllowed(method.rawValue) }
        return try await passThrough(url: url, incoming: incoming)
    }

    /// A `GET` or `HEAD` through the cache.
    private func cached(url: String, incoming: IncomingRequest) async throws -> Reply {
        let kind = KindSniffer.kind(ofPath: url) ?? .raw
        let forwarded = ForwardedFields.fields(of: incoming.headers, cacheable: true, via: via)
        let request = AssetRequest(url: try AssetRequest.location(url), kind: kind, headers: forwarded, followRedirects: false, acceptsAnyStatus: true)
        let cacheKey = CacheKeyMemo.shared.key(for: url)
        if context.isServedAsChunks(cacheKey: cacheKey) {
            var reply = try await ChunkedAssetReply(context: context, url: url).answer(incoming)
            reply.fields[.via] = via
            return reply
        }
        do {
            let representation = try await context.representation(
                for: request, cacheKey: cacheKey, memoryKind: kind, proxied: true, usesHotCopy: Self.mayUseHotCopy(incoming.headers))
            var reply = representation.reply(to: incoming, context: context)
            reply.fields[.via] = via
            return reply
        } catch let error as LoaderError {
            if let answer = error.underlying as? OriginErrorResponse { return Self.reply(passing: answer, via: via) }
            guard error == .tooLarge else { throw error }
            // larger than the loader keeps whole: through the chunk store, a range costs its chunks
            context.largeAssets.insert(cacheKey)
            var reply = try await ChunkedAssetReply(context: context, url: url).answer(incoming)
            reply.fields[.via] = via
            return reply
        }
    }

    /// An unsafe (or other) method sent on as it is; a non-error answer invalidates its targets.
    private func passThrough(url: String, incoming: IncomingRequest) async throws -> Reply {
        let limit = context.configuration.maxBodyBytes
        let body: ByteBuffer
        do {
            body = try await Deadline.run(within: context.configuration.requestTimeout) {
                try await incoming.request.body.collect(upTo: limit)
            }
        } catch is NIOTooManyBytesError {
            throw AssetServerError.bodyTooLarge(limit)
        }
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: incoming.method.rawValue)
        for field in ForwardedFields.fields(of: incoming.headers, cacheable: false, via: via) {
            request.headers.add(name: field.name, value: field.value)
        }
        if body.readableBytes > 0 || incoming.method == .post || incoming.method == .put {
            request.body = .bytes(body)
        }
        let loader = context.manager.loader
        let deadline = NIODeadline.now() + ServerResponder.timeAmount(context.configuration.requestTimeout)
        let answer = try await loader.send(request, deadline: deadline, followRedirects: false).response
        let status = Int(answer.status.code)
        var headers = HeaderFields(answer.headers)
        if (200..<400).contains(status) {
            await invalidate(requestURL: url, response: headers)
        }
        let received = try await answer.body.collect(upTo: Int(clamping: context.manager.configuration.loader.maxBodySize(for: .raw)))
        context.metrics.recordOriginBytes(Int64(received.readableBytes))
        headers.removeAll(named: "Content-Length")
        var fields = PassedFields.proxied(headers)
        fields[.via] = via
        var reply = Reply(status: HTTPResponse.Status(code: status), fields: fields, buffer: received)
        reply.cacheStatus = "bypass"
        reply.fields[.xCache] = "bypass"
        return reply
    }

    /// Drops what an unsafe request changed (RFC 9111 4.4): the target URI, and the `Location`
    /// and `Content-Location` of the answer when they name the same origin.
    private func invalidate(requestURL: String, response: HeaderFields) async {
        var urls = [requestURL]
        for name in ["Location", "Content-Location"] {
            guard let value = response[name], let resolved = URL(string: value, relativeTo: URL(string: requestURL))?.absoluteURL,
                let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false), let host = components.host,
                let origin = context.origin
            else { continue }
            let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
            guard DestinationPolicy.authority(host: host, port: port) == origin.authority else { continue }
            urls.append(resolved.absoluteString)
        }
        let disk = context.manager.diskCache
        for url in urls {
            let key = AssetLoader.defaultCacheKey(for: url)
            _ = try? await context.manager.runIO { try disk.remove(key: key) }
            context.dropHotCopies(cacheKey: key)
        }
    }

    /// Whether a hot copy may answer: no cache directives, and no field a stored `Vary` could name
    /// beyond the ones every client sends alike is needed, because hot copies are kept only for
    /// answers without `Vary`.
    static func mayUseHotCopy(_ headers: HTTPFields) -> Bool {
        headers[.cacheControl] == nil && headers[.pragma] == nil && headers[.authorization] == nil
    }

    /// The origin's `5xx`, passed on.
    static func reply(passing answer: OriginErrorResponse, via: String) -> Reply {
        var headers = answer.headers
        headers.removeAll(named: "Content-Length")
        var fields = PassedFields.proxied(headers)
        fields[.via] = via
        var reply = Reply(status: HTTPResponse.Status(code: answer.status), fields: fields, buffer: ByteBuffer(bytes: answer.body))
        reply.cacheStatus = "bypass"
        reply.fields[.xCache] = "bypass"
        return reply
    }
}
