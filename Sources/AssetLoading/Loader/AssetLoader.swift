import AssetStorage
import AsyncHTTPClient
import Logging
import NIOCore
import NIOPosix

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loads assets over HTTP(S) and from local files, through a `DiskCache`.
///
/// - One `HTTPClient` per loader (connection pooling, HTTP/1.1 and HTTP/2, TLS); call ``shutdown()``.
/// - Bodies stream to the disk cache (blocking writes on an I/O thread pool, never on Swift's cooperative
///   pool) and are committed only when whole: a body over the kind's maximum, or cut short, stores nothing.
/// - ``CacheStrategy`` picks where answers come from; the default follows RFC 9111 (``FreshnessPolicy``).
/// - Concurrent loads of the same request share one exchange; a caller that is cancelled gets
///   ``LoaderError/cancelled`` and the others go on.
/// - Failed exchanges are retried by ``RetryPolicy``; redirects are followed (limit, loop detection).
///
/// ```swift
/// let loader = AssetLoader(diskCache: cache, logger: logger)
/// let response = try await loader.load(AssetRequest(url: URL(string: "https://example.com/a.png")!, kind: .image))
/// let bytes = try await loader.data(for: response)
/// try await loader.shutdown()
/// ```
public final class AssetLoader: Sendable {
    /// The timeouts, limits, retries and policies the loader was created with.
    public let configuration: Configuration
    /// The cache the loader reads and fills.
    public let diskCache: DiskCache
    let logger: Logger
    /// The shared HTTP client (connection pool, timeouts; redirects not followed). Exchanges the
    /// loader does not make itself (range requests) go through
    /// ``send(_:deadline:followRedirects:kind:)``, which applies the destination policy and follows
    /// redirects.
    public var httpClient: HTTPClient { self.clients.shared }
    let clients: OriginClients
    let ioPool: NIOThreadPool
    let ownsIOPool: Bool
    let inFlight = InFlightLoads()
    let backgroundRefreshes = BackgroundRefreshes()
    let policy: FreshnessPolicy
    let metrics: LoaderMetrics

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - diskCache: the cache the loader reads and fills.
    ///   - configuration: timeouts, limits, retries and policies. Default: the defaults documented on
    ///     ``Configuration-swift.struct``.
    ///   - ioThreadPool: a started pool for blocking disk I/O (for example the `AssetsManager`'s), or nil
    ///     for a pool of ``Configuration/ioThreads`` threads owned (and stopped) by the loader.
    ///   - logger: where the loader logs; it never bootstraps logging.
    public init(
        diskCache: DiskCache,
        configuration: Configuration = Configuration(),
        ioThreadPool: NIOThreadPool? = nil,
        logger: Logger = Logger(label: "AssetLoading.AssetLoader")
    ) {
        self.configuration = configuration
        self.diskCache = diskCache
        self.logger = logger
        if let ioThreadPool {
            self.ioPool = ioThreadPool
            self.ownsIOPool = false
        } else {
            let pool = NIOThreadPool(numberOfThreads: max(1, configuration.ioThreads))
            pool.start()
            self.ioPool = pool
            self.ownsIOPool = true
        }
        var client = HTTPClient.Configuration()
        client.timeout = HTTPClient.Configuration.Timeout(
            connect: Self.timeAmount(configuration.connectTimeout),
            read: Self.timeAmount(configuration.readTimeout)
        )
        // redirects are followed by `send`, which checks every hop against the destination policy
        client.redirectConfiguration = .disallow
        client.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maxConnectionsPerHost)
        // a refused connection fails the attempt at once; the loader's RetryPolicy decides what follows
        client.connectionPool.retryConnectionEstablishment = false
        client.decompression = .disabled
        self.clients = OriginClients(configuration: client, logger: logger)
        self.policy = FreshnessPolicy(configuration: configuration.freshness)
        self.metrics = LoaderMetrics(factory: configuration.metricsFactory)
    }

    /// Waits for background revalidations, then stops the HTTP client and, when the loader created it,
    /// the I/O pool. Loads after this fail with ``LoaderError/shutdown``.
    public func shutdown() async throws {
        await self.backgroundRefreshes.waitForAll()
        try await self.clients.shutdown()
        if self.ownsIOPool {
            try await self.ioPool.shutdownGracefully()
        }
    }

    /// Loads `request`: from the cache, the network or a local file, as its strategy says.
    ///
    /// Throws a ``LoaderError``; a caller's cancellation throws ``LoaderError/cancelled``.
    public func load(_ request: AssetRequest) async throws -> AssetResponse {
        let start = self.configuration.clock.now
        do {
            let target = try LoadTarget(request)
            let response: AssetResponse
            switch target.scheme {
            case .file(let path):
                response = try await self.loadFile(path: path, target: target, start: start)
            case .http:
                guard case .useProtocolCachePolicy = target.request.strategy else {
                    response = try await self.inFlight.load(key: target.coalescingKey) { try await self.loadHTTP(target, start: start) }
                    break
                }
                // A fresh entry answers before the coalescing of identical loads, which costs a task
                // and a continuation per load and serves only loads that go to the network; what the
                // look-up found goes on to the load, so a miss or a stale entry is not looked up twice.
                let entry = try await self.lookup(target)
                if let entry, let stored = entry.stored,
                   case .fresh = self.policy.decide(stored: stored, request: target.request.headers, now: self.configuration.clock.now)
                {
                    response = self.cachedResponse(entry, target: target, outcome: .cached, start: start)
                    break
                }
                response = try await self.inFlight.load(key: target.coalescingKey) {
                    try await self.loadFollowingProtocol(target, entry: entry, start: start)
                }
            }
            self.metrics.recordLoad(kind: request.kind, outcome: response.outcome)
            self.logger.debug(
                "asset loaded",
                metadata: [
                    "url": "\(request.address)", "outcome": "\(response.outcome.rawValue)", "status": "\(response.status)",
                    "bytes": "\(response.size)",
                ])
            return response
        } catch {
            let failure = LoaderError.mapping(error)
            self.metrics.recordFailure(kind: request.kind, error: failure)
            self.logger.debug("asset load failed", metadata: ["url": "\(request.address)", "error": "\(failure)"])
            throw failure
        }
    }

    /// The bytes of a response's body: read from the disk cache or the local file (on the I/O pool), or
    /// the bytes held in memory. Throws a ``LoaderError``: ``LoaderError/notCached`` when the cache entry
    /// has gone meanwhile.
    public func data(for response: AssetResponse) async throws -> Data {
        do {
            switch response.body {
            case .data(let data):
                return data
            case .cacheEntry(let metadata):
                let cache = self.diskCache
                let data = try await self.runIO { try cache.data(forKey: metadata.key) }
                guard let data, Int64(data.count) == metadata.size else {
                    throw LoaderError.notCached.with(message: "the cache entry for \(metadata.key) is gone")
                }
                return data
            case .file(let path, _):
                return try await self.runIO { try LocalFile.read(path: path) }
            }
        } catch {
            throw LoaderError.mapping(error)
        }
    }

    /// The default cache key of a URL: the URL with its scheme and host lowercased and without fragment.
    public static func defaultCacheKey(for url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return Self.defaultCacheKey(for: components, url: url)
    }

    /// ``defaultCacheKey(for:)`` of a URL already parsed into `components`.
    static func defaultCacheKey(for parsed: URLComponents, url: String) -> String {
        var components = parsed
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        components.fragment = nil
        return components.string ?? url
    }

    /// Loads that joined an identical load in progress instead of sending their own request, since
    /// the loader was created.
    public var coalescedLoads: Int { self.inFlight.joinedCount }

    /// Waits until the background revalidations started so far (`stale-while-revalidate`) have finished.
    public func waitForBackgroundRefreshes() async {
        await self.backgroundRefreshes.waitForAll()
    }

    /// Runs blocking work (disk I/O) on the loader's I/O pool.
    func runIO<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await self.ioPool.runIfActive(body)
        } catch let error as NIOThreadPoolError.ThreadPoolInactive {
            throw LoaderError.shutdown.with(underlying: error)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
