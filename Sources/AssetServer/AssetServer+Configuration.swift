import AssetLoading
import AssetPipeline
import AssetStorage
import Prometheus

extension AssetServer {
    /// Where the server listens, what it fetches, and its limits. The CLI's `assetpipe serve` sets
    /// each field from a flag or an `ASSETPIPE_*` environment variable.
    public struct Configuration: Sendable {
        /// The address to bind. Default `127.0.0.1`.
        public var host: String
        /// The port to bind; 0 lets the system choose (see ``AssetServer/listeningPort``). Default 8080.
        public var port: Int
        /// Reverse-proxy mode: every `GET`/`HEAD` outside the service's own paths (`/v1/`, `/metrics`,
        /// `/healthz`, `/readyz`) is answered from the cache or fetched from this origin at the same
        /// path and query, as a shared cache (RFC 9111). Its authority is trusted by the destination
        /// check. Default nil (off).
        public var origin: String?
        /// Fetch from loopback, private, link-local and other non-public addresses. Default false.
        public var allowPrivate: Bool
        /// When non-empty, the only hosts fetched (`HostPattern`: `cdn.example.org`, `*.example.org`).
        /// Default empty (any public host).
        public var allowedHosts: [HostPattern]
        /// The object store `s3://bucket/key` sources are read from; nil for none. Default nil.
        public var s3: S3Client.Configuration?
        /// The buckets `s3://` sources may name (`--allow-s3-bucket`); any other is refused with
        /// 403 before anything is sent. Default empty: no `s3://` source.
        public var allowedS3Buckets: Set<String> = []
        /// The bearer token of the admin endpoints (`/v1/cache/prune`, `/v1/cache/purge`); nil turns
        /// them off. Default nil.
        public var adminToken: String?
        /// Connections served at once; more wait in the listen backlog. Default 1,024.
        public var maxConnections: Int
        /// The longest a request may take to produce its response head (fetching, decoding): a 504
        /// after it. Default 60 seconds.
        public var requestTimeout: Duration
        /// The longest one piece of a response body may wait for a slow client to read; the
        /// connection is closed after it. Default 30 seconds.
        public var writeTimeout: Duration
        /// The longest a connection may stay idle, or take to send a request's head. Default 30 s.
        public var idleTimeout: Duration
        /// The longest graceful shutdown waits for requests in flight. Default 10 seconds.
        public var drainTimeout: Duration
        /// The longest request target (path and query), in bytes: a 414 beyond. Default 8 KiB.
        public var maxRequestTargetBytes: Int
        /// The most bytes of request header fields: the connection gets a 400 beyond. Default 32 KiB.
        public var maxHeaderBytes: Int
        /// The largest request body (a prefetch list, a proxied upload): a 413 beyond. Default 8 MiB.
        public var maxBodyBytes: Int
        /// Assets larger than this (by their announced length) are served through the chunk store,
        /// like video: a range of them costs only its chunks. Default 64 MiB.
        public var largeAssetThreshold: Int64
        /// For the chunked answers (video, large assets): each origin request asks for the chunk at
        /// the client's position and this many after it, the next one when the client gets there
        /// (as far as ``unsentBytesLimit`` lets the server see where the client is); a client that
        /// leaves has its request's window read to the end and kept
        /// (`VideoUtil.Configuration.readAheadChunks`). Default 1.
        public var readAheadChunks: Int
        /// The most bytes a connection's socket holds unsent (`TCP_NOTSENT_LOWAT`): a write waits
        /// once the kernel holds this much that it has not sent yet. A client that reads slowly then
        /// holds back the body at the server, where the read-ahead sees it, instead of in several
        /// MiB of kernel buffers; a client that reads fast is not slowed, as what the network has
        /// in flight does not count. Nil leaves the kernel's default. Default 128 KiB.
        public var unsentBytesLimit: Int?
        /// The largest body kept in the memory cache for hot hits; larger ones are read from disk for
        /// each request. Default 1 MiB.
        public var memoryAssetLimit: Int
        /// Prefetch jobs kept at once (running or finished); the oldest finished job is dropped to make
        /// room, and a new job is refused with 429 when all are running. Default 8.
        public var maxPrefetchJobs: Int
        /// The most lines of one prefetch job's list. Default 100,000.
        public var maxPrefetchItems: Int
        /// How prefetch jobs run (concurrency, per host, validation). Default: the prefetcher's defaults.
        public var prefetch: Prefetcher.Configuration
        /// The name sent in `X-Assetpipe-Node` (a tier node's name) and `Via`; `Server` carries
        /// `AssetPipelineVersion.productToken`. Default `assetpipe`.
        public var nodeName: String
        /// Where the metrics of `/metrics` are kept: the server's, and the loader's when the manager
        /// was built with ``loaderConfiguration(_:)``. Default: a registry of its own.
        public var metrics: PrometheusCollectorRegistry
        /// How `/v1/image` makes and guards encoded variants: limits, the transform queue, signing and
        /// presets. Default: ``ImageService/init(util:maxSourcePixels:transformTimeout:retryAfterSeconds:signer:presets:presetsOnly:)``'s defaults.
        public var images: ImageService
        /// How Lottie animations are read and their frames rendered, for `/v1/lottie` and for
        /// variants with a frame (`frame=30`): the reader's and renderer's limits, and
        /// `renderWorkers`, the worker processes frames render in (`assetpipe serve` starts its own
        /// executable's `worker` command), so that a crash or hang of rlottie ends a worker, not the
        /// server, and answers 500 `render_failed`. The pool belongs to the caller, who shuts it
        /// down. Default: the util's defaults (frames render in this process).
        public var lottie: LottieUtil.Configuration

        /// A configuration with the defaults written on each property.
        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            origin: String? = nil,
            allowPrivate: Bool = false,
            allowedHosts: [HostPattern] = [],
            adminToken: String? = nil,
            maxConnections: Int = 1_024,
            requestTimeout: Duration = .seconds(60),
            writeTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(30),
            drainTimeout: Duration = .seconds(10),
            maxRequestTargetBytes: Int = 8 << 10,
            maxHeaderBytes: Int = 32 << 10,
            maxBodyBytes: Int = 8 << 20,
            largeAssetThreshold: Int64 = 64 << 20,
            readAheadChunks: Int = 1,
            unsentBytesLimit: Int? = 128 << 10,
            memoryAssetLimit: Int = 1 << 20,
            maxPrefetchJobs: Int = 8,
            maxPrefetchItems: Int = 100_000,
            prefetch: Prefetcher.Configuration = Prefetcher.Configuration(),
            nodeName: String = "assetpipe",
            metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
            images: ImageService = ImageService(),
            lottie: LottieUtil.Configuration = LottieUtil.Configuration()
        ) {
            self.images = images
            self.lottie = lottie
            self.host = host
            self.port = port
            self.origin = origin
            self.allowPrivate = allowPrivate
            self.allowedHosts = allowedHosts
            self.adminToken = adminToken
            self.maxConnections = maxConnections
            self.requestTimeout = requestTimeout
            self.writeTimeout = writeTimeout
            self.idleTimeout = idleTimeout
            self.drainTimeout = drainTimeout
            self.maxRequestTargetBytes = maxRequestTargetBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
            self.largeAssetThreshold = largeAssetThreshold
            self.readAheadChunks = readAheadChunks
            self.unsentBytesLimit = unsentBytesLimit
            self.memoryAssetLimit = memoryAssetLimit
            self.maxPrefetchJobs = maxPrefetchJobs
            self.maxPrefetchItems = maxPrefetchItems
            self.prefetch = prefetch
            self.nodeName = nodeName
            self.metrics = metrics
        }

        /// The destination policy the server's manager must load with: these settings, with the
        /// origin's authority trusted.
        public var destinationPolicy: DestinationPolicy {
            var trusted: Set<String> = []
            if let origin, let authority = OriginURL(origin)?.authority { trusted.insert(authority) }
            var policy = DestinationPolicy(allowPrivate: allowPrivate, allowedHosts: allowedHosts, trustedAuthorities: trusted)
            policy.allowedS3Buckets = allowedS3Buckets
            return policy
        }

        /// The loader settings a serving manager needs on top of `base`: a shared cache (RFC 9111
        /// `s-maxage`, `private`...), the destination policy, bodies over ``largeAssetThreshold``
        /// refused so that they go to the chunk store (images also over the image service's
        /// `maxInputBytes`), and its counters in ``metrics``.
        public func loaderConfiguration(_ base: AssetLoader.Configuration = AssetLoader.Configuration()) -> AssetLoader.Configuration {
            var loader = base
            loader.freshness.shared = true
            loader.destinationPolicy = destinationPolicy
            loader.s3 = s3
            loader.metricsFactory = PrometheusMetricsFactory(registry: metrics)
            for kind in [AssetKind.image, .lottie, .raw] {
                loader.maxBodySize[kind] = min(loader.maxBodySize(for: kind), largeAssetThreshold)
            }
            loader.maxBodySize[.image] = min(loader.maxBodySize(for: .image), Int64(images.util.maxInputBytes))
            return loader
        }
    }
}
