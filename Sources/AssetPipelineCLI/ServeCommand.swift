import ArgumentParser
import AssetLoading
import AssetPipeline
import AssetServer
import AssetStorage
import AssetWorkers
import Foundation
import Logging
import ServiceLifecycle

/// `assetpipe serve`: the pipeline as a caching HTTP service (and, with `--origin`, a caching reverse
/// proxy). The server itself is the `AssetServer` library; this command reads flags and environment
/// variables, opens the cache and runs it until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve assets, decoded images, Lottie facts and video ranges over HTTP from the cache.",
        discussion: """
            Endpoints: /v1/asset?url=U, /v1/image?url=U[&maxDimension=N][&format=pam|ppm|rgba], \
            /v1/lottie?url=U[&strict=1], POST /v1/prefetch, GET|DELETE /v1/prefetch/ID, /v1/cache/stats, \
            POST /v1/cache/prune and /v1/cache/purge?url=U (with --admin-token-file), /metrics, /healthz, /readyz. \
            With --origin, every other GET or HEAD is served from the cache or fetched from the origin at the same path.

            /v1/image with a transform (w=320&format=webp...) answers an encoded variant; with \
            frame=30, frame=50% or frame=1.5s, of a still frame of a Lottie animation, rendered in \
            --render-workers worker processes of this executable: a crash or hang ends a worker, not \
            the server, and answers 500 render_failed.

            Only http and https URLs are fetched, and never from loopback, private, link-local or other \
            non-public addresses unless --allow-private (the --origin itself is trusted).

            Every option can also be set by an environment variable, named after it: --max-connections \
            is ASSETPIPE_MAX_CONNECTIONS, --allow-private is ASSETPIPE_ALLOW_PRIVATE=1, --allow-host is \
            ASSETPIPE_ALLOW_HOSTS (comma-separated). A flag wins over its variable.

            SIGTERM or SIGINT stops accepting connections, lets requests in flight finish (up to \
            --drain-timeout), flushes the cache's access records and exits 0.
            """)

    @Option(help: ArgumentHelp("The address to listen on (default 127.0.0.1).", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one (default 8080).", valueName: "port"))
    var port: Int?

    @OptionGroup var cache: CacheOptions

    @OptionGroup(title: "Image service") var images: ImageServiceOptions

    @OptionGroup(title: "Render workers") var renderWorkers: RenderWorkerOptions

    @Option(help: ArgumentHelp("Reverse-proxy mode: fetch other paths from this origin (http://host:port).", valueName: "url"))
    var origin: String?

    @Flag(name: .customLong("allow-private"), help: "Also fetch from loopback, private and link-local addresses.")
    var allowPrivate = false

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "Fetch only from hosts matching this pattern (cdn.example.org or *.example.org); repeatable.", valueName: "pattern"))
    var allowHosts: [String] = []

    @Option(name: .customLong("allow-s3-bucket"), help: ArgumentHelp(
        "Read s3://BUCKET/key sources from this bucket of the S3 store (--s3-endpoint); repeatable; without it no s3:// source.",
        valueName: "bucket"))
    var allowS3Buckets: [String] = []

    @OptionGroup(title: "Object storage") var s3: S3Options
    @OptionGroup var derived: DerivedStoreOptions

    @Option(name: .customLong("admin-token-file"), help: ArgumentHelp(
        "A file holding the bearer token of the admin endpoints (prune, purge); without it they are off.", valueName: "file"))
    var adminTokenFile: String?

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections served at once (default 1024).", valueName: "n"))
    var maxConnections: Int?

    @Option(name: .customLong("request-timeout"), help: ArgumentHelp(
        "Seconds a request may take to produce its response head (default 60).", valueName: "seconds"))
    var requestTimeout: Double?

    @Option(name: .customLong("write-timeout"), help: ArgumentHelp(
        "Seconds a slow client may take to read each piece of a body before it is cut off (default 30).", valueName: "seconds"))
    var writeTimeout: Double?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "Seconds a connection may stay idle or take to send a request head (default 30).", valueName: "seconds"))
    var idleTimeout: Double?

    @Option(name: .customLong("drain-timeout"), help: ArgumentHelp(
        "Seconds a shutdown waits for requests in flight (default 10).", valueName: "seconds"))
    var drainTimeout: Double?

    @Option(name: .customLong("max-body-bytes"), help: ArgumentHelp("The largest request body (default 8388608).", valueName: "bytes"))
    var maxBodyBytes: Int?

    @Option(name: .customLong("memory-budget"), help: ArgumentHelp(
        "Bytes of the memory caches, split between kinds (default 268435456).", valueName: "bytes"))
    var memoryBudget: Int?

    @Option(name: .customLong("max-disk-bytes"), help: ArgumentHelp(
        "The disk cache's byte limit, enforced as it fills (default: the cache's default, 10 GiB).", valueName: "bytes"))
    var maxDiskBytes: Int64?

    @Option(name: .customLong("large-asset-threshold"), help: ArgumentHelp(
        "Assets larger than this are served through the chunk store, like video (default 67108864).", valueName: "bytes"))
    var largeAssetThreshold: Int64?

    @Option(name: .customLong("read-ahead-chunks"), help: ArgumentHelp(
        "Chunks fetched past a video client's position per origin request; a client that leaves has that window kept (default 1).",
        valueName: "n"))
    var readAheadChunks: Int?

    @Option(name: .customLong("unsent-bytes-limit"), help: ArgumentHelp(
        "Bytes a connection's socket may hold unsent (TCP_NOTSENT_LOWAT), so that a slow player holds back video at the server, where read-ahead sees it; 0 leaves the kernel's default (default 131072). Env ASSETPIPE_UNSENT_BYTES_LIMIT.",
        valueName: "bytes"))
    var unsentBytesLimit: Int?

    @Option(name: .customLong("memory-asset-limit"), help: ArgumentHelp(
        "The largest body kept in memory for hot hits (default 1048576).", valueName: "bytes"))
    var memoryAssetLimit: Int?

    @Option(name: .customLong("max-prefetch-jobs"), help: ArgumentHelp("Prefetch jobs kept at once (default 8).", valueName: "n"))
    var maxPrefetchJobs: Int?

    @Option(name: .customLong("node-name"), help: ArgumentHelp(
        "This node's name, sent in Server and X-Assetpipe-Node (default assetpipe).", valueName: "name"))
    var nodeName: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning or error (default info).", valueName: "level"))
    var logLevel: String?

    func run() async throws {
        let settings: ServeSettings
        do {
            settings = try ServeSettings(self, environment: ProcessInfo.processInfo.environment)
        } catch let error as ValidationError {
            CLIOutput.error(error.message)
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "assetpipe.serve")
        var server = settings.server
        // frames of animations render in worker processes of this executable: a crash or hang of
        // rlottie ends a worker, and the request gets 500 render_failed
        let renderWorkers = WorkerPool(configuration: settings.renderWorkers)
        defer { renderWorkers.shutdown() }
        server.lottie.renderWorkers = renderWorkers
        // and so do the decoders of HEIF, AVIF, TIFF, SVG and JPEG XL (libheif, libavif, libtiff,
        // librsvg, libjxl): a crash there is 500 render_failed, and the server lives on
        server.images.util.decodeWorkers = renderWorkers
        var disk = DiskCache.Configuration(directory: settings.cacheDirectory)
        if let maxDiskBytes = settings.maxDiskBytes { disk.maxBytes = maxDiskBytes }
        let manager: AssetsManager
        do {
            manager = try await AssetsManager.open(
                configuration: .init(
                    disk: disk, memory: AssetsManager.Configuration.defaultMemory(budget: settings.memoryBudget),
                    loader: server.loaderConfiguration()),
                logger: logger)
        } catch {
            CLIOutput.error("cannot open the cache in \(settings.cacheDirectory.path): \(error)")
            throw ExitCode.failure
        }
        let service = AssetServer(manager: manager, configuration: server, logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = server.drainTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        var failed = false
        do {
            try await group.run()
        } catch {
            logger.error("the server stopped: \(error)")
            failed = true
        }
        do {
            try await manager.shutdown()
        } catch {
            logger.error("closing the cache failed: \(error)")
            failed = true
        }
        logger.notice("assetpipe serve stopped")
        if failed { throw ExitCode.failure }
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
