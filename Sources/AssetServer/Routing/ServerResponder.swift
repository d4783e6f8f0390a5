import AssetPipeline
import AssetStorage
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore

/// Answers every request: finds the endpoint, runs it within the request timeout, turns errors
/// into JSON replies, writes the reply (only its head for `HEAD`) and counts it.
final class ServerResponder: Sendable {
    let context: ServerContext

    init(manager: AssetsManager, configuration: AssetServer.Configuration, logger: Logger) {
        self.context = ServerContext(manager: manager, configuration: configuration, logger: logger)
    }

    /// The endpoints, by the label their metrics carry.
    enum Endpoint: String, Sendable, CaseIterable {
        case asset, image, lottie, storyboard, prefetch, prefetchJob = "prefetch_job", cacheStats = "cache_stats"
        case cachePrune = "cache_prune", cachePurge = "cache_purge", metrics, healthz, readyz, proxy, notFound = "not_found"
    }

    func respond(to request: Request, writer: consuming ResponseWriter, channel: any Channel) async {
        let start = ContinuousClock.now
        let configuration = context.configuration
        let incoming = IncomingRequest(request, channel: channel, writeTimeout: Self.timeAmount(configuration.writeTimeout))
        let endpoint = route(incoming)
        var reply: Reply
        do {
            if request.uri.string.utf8.count > configuration.maxRequestTargetBytes { throw AssetServerError.targetTooLong }
            reply = try await answer(endpoint, incoming)
        } catch {
            let failure = AssetServerError.from(error)
            if failure.status >= 500 {
                context.logger.warning("request failed", metadata: [
                    "endpoint": "\(endpoint.rawValue)", "status": "\(failure.status)", "error": "\(failure)"])
            }
            reply = .error(failure)
        }
        reply.fields[.server] = AssetPipelineVersion.productToken
        reply.fields[.xNode] = configuration.nodeName
        reply.fields[.contentLength] = String(reply.length)
        let status = reply.status.code
        let length = reply.length
        let cacheStatus = reply.cacheStatus
        let head = HTTPResponse(status: reply.status, headerFields: reply.fields)
        var written = true
        do {
            if incoming.headOnly || status == 304 || status == 204 {
                try await writer.writeResponse(head)
            } else {
                try await writer.write(response: head, body: reply.body)
            }
        } catch {
            written = false
            context.logger.debug("response cut off", metadata: ["endpoint": "\(endpoint.rawValue)", "error": "\(error)"])
            channel.close(promise: nil)
        }
        context.logger.trace("request answered", metadata: [
            "method": "\(request.method.rawValue)", "target": "\(request.uri.string.prefix(200))", "status": "\(status)"])
        context.metrics.recordRequest(
            endpoint: endpoint.rawValue, status: status, seconds: (ContinuousClock.now - start).seconds,
            bytesSent: written && !incoming.headOnly ? length : 0, cacheStatus: cacheStatus)
    }

    /// The endpoint a request is for.
    func route(_ incoming: IncomingRequest) -> Endpoint {
        let path = incoming.path
        switch path {
        case "/v1/asset": return .asset
        case "/v1/image": return .image
        case "/v1/lottie": return .lottie
        case "/v1/storyboard": return .storyboard
        case "/v1/prefetch": return .prefetch
        case "/v1/cache/stats": return .cacheStats
        case "/v1/cache/prune": return .cachePrune
        case "/v1/cache/purge": return .cachePurge
        case "/metrics": return .metrics
        case "/healthz": return .healthz
        case "/readyz": return .readyz
        default:
            if path.hasPrefix("/v1/prefetch/") { return .prefetchJob }
            if path.hasPrefix("/v1/image/") { return .image }
            if context.origin != nil && !path.hasPrefix("/v1/") { return .proxy }
            return .notFound
        }
    }

    private func answer(_ endpoint: Endpoint, _ incoming: IncomingRequest) async throws -> Reply {
        let method = incoming.method
        let readOnly = method == .get || method == .head
        switch endpoint {
        case .proxy:
            return try await ProxyEndpoint(context: context).answer(incoming)
        case .notFound:
            throw AssetServerError.notFound
        case .prefetch:
            guard method == .post else { throw AssetServerError.methodNotAllowed(method.rawValue) }
            return try await PrefetchEndpoint(context: context).create(incoming)
        case .prefetchJob:
            let id = String(incoming.path.dropFirst("/v1/prefetch/".count))
            switch method {
            case .get, .head: return try PrefetchEndpoint(context: context).status(id: id, incoming: incoming)
            case .delete: return try PrefetchEndpoint(context: context).cancel(id: id)
            default: throw AssetServerError.methodNotAllowed(method.rawValue)
            }
        case .cachePrune, .cachePurge:
            guard method == .post else { throw AssetServerError.methodNotAllowed(method.rawValue) }
            let admin = AdminEndpoints(context: context)
            try admin.authorize(incoming)
            return try await endpoint == .cachePrune ? admin.prune(incoming) : admin.purge(incoming)
        default:
            guard readOnly else { throw AssetServerError.methodNotAllowed(method.rawValue) }
        }
        switch endpoint {
        case .asset: return try await withRequestDeadline { try await AssetEndpoint(context: self.context).answer(incoming) }
        case .image: return try await withRequestDeadline { try await ImageEndpoint(context: self.context).answer(incoming) }
        case .lottie: return try await withRequestDeadline { try await LottieEndpoint(context: self.context).answer(incoming) }
        case .storyboard:
            return try await withRequestDeadline { try await StoryboardEndpoint(context: self.context).answer(incoming) }
        case .cacheStats: return try await AdminEndpoints(context: context).stats()
        case .metrics: return HealthEndpoints(context: context).metrics()
        case .healthz: return HealthEndpoints(context: context).alive()
        case .readyz: return HealthEndpoints(context: context).ready()
        default: throw AssetServerError.notFound
        }
    }

    /// Runs `body`, answering 504 when it has not produced its reply within the request timeout.
    func withRequestDeadline(_ body: @escaping @Sendable () async throws -> Reply) async throws -> Reply {
        try await Self.withDeadline(context, body)
    }

    /// Runs `body`, answering 504 when it has not produced its reply within the request timeout.
    static func withDeadline(_ context: ServerContext, _ body: @escaping @Sendable () async throws -> Reply) async throws -> Reply {
        try await Deadline.run(within: context.configuration.requestTimeout, body)
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Racing work against a deadline.
enum Deadline {
    /// The result of `body`, or ``AssetServerError/requestTimeout`` once `duration` has passed
    /// (`body` is then cancelled).
    static func run<T: Sendable>(within duration: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: duration)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw AssetServerError.requestTimeout }
            return value
        }
    }
}
