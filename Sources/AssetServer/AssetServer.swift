import AssetPipeline
import AssetStorage
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The pipeline as a caching HTTP service: the `AssetsManager`'s caches and loader, `ImageUtil`,
/// `LottieUtil`, `VideoUtil` and the `Prefetcher` behind HTTP/1.1, and optionally a reverse
/// proxy in front of one origin that caches as a shared cache (RFC 9111).
///
/// - **No second cache**: assets are answered from the manager's memory caches (hot bodies up to
///   ``Configuration/memoryAssetLimit``), its disk cache, or its chunk store (video and assets over
///   ``Configuration/largeAssetThreshold``), and fetched through its loader, which coalesces
///   identical requests (500 concurrent requests for one cold asset make one origin request).
/// - **Safe to expose**: only `http` and `https` URLs, destinations checked by the loader's
///   `DestinationPolicy` (build the manager with
///   ``Configuration/loaderConfiguration(_:)``); bounded request targets, headers and bodies; a
///   request's head within ``Configuration/requestTimeout``, each body piece within
///   ``Configuration/writeTimeout``; idle connections closed; every error a JSON object.
/// - **A `Service`**: run it in a `ServiceGroup`; graceful shutdown stops accepting, lets the
///   requests in flight finish, and returns. The manager stays the caller's to shut down (which
///   flushes the disk cache's access records).
///
/// ```swift
/// let server = AssetServer(manager: manager, configuration: .init(port: 0, allowPrivate: true))
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public final class AssetServer: Service, Sendable {
    /// Where the server listens, what it fetches, and its limits.
    public let configuration: Configuration
    /// The manager whose caches and loader the server answers from; the caller shuts it down.
    public let manager: AssetsManager
    let responder: ServerResponder
    let logger: Logger
    private let port = PortBox()

    /// A server over `manager`. Give the manager ``Configuration/loaderConfiguration(_:)`` so that
    /// its loader is a shared cache with the destination policy.
    public init(manager: AssetsManager, configuration: Configuration, logger: Logger = Logger(label: "AssetServer")) {
        self.configuration = configuration
        self.manager = manager
        self.logger = logger
        self.responder = ServerResponder(manager: manager, configuration: configuration, logger: logger)
    }

    /// The prometheus text of the server's metrics (what `GET /metrics` answers).
    public func metricsText() -> String {
        String(decoding: responder.context.metrics.exposition(), as: UTF8.self)
    }

    /// The port the server listens on, once it does (nil before, and after it stopped).
    public var listeningPort: Int? { port.value }

    /// Waits until the server listens and returns its port; nil when it stopped before listening.
    public func waitUntilListening() async -> Int? { await port.wait() }

    /// Serves until graceful shutdown (or cancellation), then returns once the requests in flight
    /// have been answered.
    public func run() async throws {
        let responder = self.responder
        let configuration = self.configuration
        let server = Server(
            childChannelSetup: AssetHTTPChannel(
                responder: { request, writer, channel in
                    await responder.respond(to: request, writer: writer, channel: channel)
                },
                hotPath: HotPath(context: responder.context),
                idleTimeout: ServerResponder.timeAmount(configuration.idleTimeout),
                maxHeaderBytes: configuration.maxHeaderBytes,
                unsentBytesLimit: configuration.unsentBytesLimit),
            configuration: ServerConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: AssetPipelineVersion.productToken,
                backlog: 1_024,
                availableConnectionsDelegate: MaximumAvailableConnections(max(1, configuration.maxConnections), logger: logger)),
            onServerRunning: { [port, logger, configuration] channel in
                let bound = channel.localAddress?.port ?? configuration.port
                port.set(bound)
                logger.notice(
                    "assetpipe serve listening on http://\(configuration.host):\(bound)",
                    metadata: ["host": "\(configuration.host)", "port": "\(bound)",
                               "mode": "\(configuration.origin == nil ? "service" : "reverse proxy of \(configuration.origin!)")"])
                if configuration.images.signer == nil {
                    logger.notice(
                        "image transforms are open: any client may ask /v1/image for any size and format of any allowed source; give a signing key (--signing-key-file) or presets-only to restrict them")
                }
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger)
        responder.context.state.markReady()
        defer {
            port.finish()
            responder.context.jobs.cancelAll()
        }
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: { [logger] in
            responder.context.state.markDraining()
            logger.notice("assetpipe serve draining: no new connections, finishing the requests in flight")
        }
    }
}

/// The bound port, with waiters for it.
final class PortBox: Sendable {
    private struct State {
        var port: Int?
        var finished = false
        var waiters: [CheckedContinuation<Int?, Never>] = []
    }
    private let state = Mutex(State())

    var value: Int? { state.withLock { $0.finished ? nil : $0.port } }

    func set(_ port: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int?, Never>] in
            state.port = port
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Int?, Never>] in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    func wait() async -> Int? {
        await withCheckedContinuation { continuation in
            let ready: Int?? = state.withLock { state in
                if let port = state.port { return .some(port) }
                if state.finished { return .some(nil) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
