import AssetWorkers
import AssetLoading
import AssetLottie
import AssetLottieRender
import NIOPosix

extension LottieUtil {
    /// How one animation is loaded and parsed. `strict` is part of the memory-cache key.
    public struct Options: Sendable, Hashable {
        /// Validate after parsing and fail with `LottieError.validationFailed` (every problem with its
        /// JSON path) when there are problems. Default: false (lenient, like the players).
        public var strict: Bool
        /// Where the bytes may come from on a memory miss. With `CacheStrategy.networkOnly` the
        /// memory cache is not read either. Default: `CacheStrategy.useProtocolCachePolicy`.
        public var strategy: CacheStrategy
        /// The cache key, or nil for the URL's default key (`AssetLoader.defaultCacheKey(for:)`).
        public var cacheKey: String?
        /// Keep the parsed model in the lottie memory cache. `false` parses without memoizing (what a
        /// prefetch that only validates wants); a model already in memory is still returned.
        /// Default: true.
        public var keepInMemory: Bool

        /// Creates options; every parameter defaults to the value documented on its property.
        public init(
            strict: Bool = false,
            strategy: CacheStrategy = .useProtocolCachePolicy,
            cacheKey: String? = nil,
            keepInMemory: Bool = true
        ) {
            self.strict = strict
            self.strategy = strategy
            self.cacheKey = cacheKey
            self.keepInMemory = keepInMemory
        }
    }

    /// Limits and threads of a ``LottieUtil``: the reader's, the renderer's, and the threads both run on.
    public struct Configuration: Sendable {
        /// The reader's limits (input bytes, nesting depth, layers, archive entries, decompressed
        /// bytes). Its `parser.strict` is replaced by each call's ``Options/strict``. Default: the
        /// reader's defaults.
        public var reader: LottieDocumentReader.Configuration
        /// Threads that parse: a started pool the caller owns and stops, or nil for the manager's
        /// I/O threads. Either way parsing runs off Swift's cooperative pool. Default: nil.
        public var parsePool: NIOThreadPool?
        /// The frame renderer's limits (frame size, the animation's declared size, embedded images,
        /// nesting); frames render on the same threads as parses. Default: the renderer's defaults.
        public var renderer: LottieFrameRenderer.Configuration
        /// Worker processes to render frames in (`assetpipe worker`, or any program serving
        /// `LottieFrameJob` with `WorkerLoop`), so that a crash, hang or runaway allocation in
        /// rlottie ends a worker, not this process; nil renders in this process. Our parser and the
        /// renderer's checks run here either way. Default: nil.
        public var renderWorkers: WorkerPool?

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            reader: LottieDocumentReader.Configuration = .init(), parsePool: NIOThreadPool? = nil,
            renderer: LottieFrameRenderer.Configuration = .init(), renderWorkers: WorkerPool? = nil
        ) {
            self.reader = reader
            self.parsePool = parsePool
            self.renderer = renderer
            self.renderWorkers = renderWorkers
        }

        /// The reader for one call's options.
        func reader(strict: Bool) -> LottieDocumentReader {
            var configuration = reader
            configuration.parser.strict = strict
            return LottieDocumentReader(configuration: configuration)
        }
    }
}
