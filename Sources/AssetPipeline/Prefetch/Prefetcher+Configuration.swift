import AssetWorkers
import AssetImaging
import AssetLoading

extension Prefetcher {
    /// How a prefetch run schedules and checks its items.
    public struct Configuration: Sendable {
        /// Items in flight at once, overall. Default 8.
        public var concurrency: Int
        /// Items in flight at once per origin (scheme, host and port). Default 4.
        public var perHost: Int
        /// Request starts per second at most; nil for no limit. Default nil.
        public var rate: Double?
        /// How each URL is loaded. Default `CacheStrategy.useProtocolCachePolicy`.
        public var strategy: CacheStrategy
        /// Whether to check what was fetched: images decoded whole, Lottie parsed, a video's first
        /// bytes matched against the known containers. An item that fails is reported failed and
        /// its bytes are removed from the cache. Default false.
        public var validate: Bool
        /// How much of a video to fetch: nil for all of it, into the disk cache like any asset (where
        /// ``VideoUtil`` range reads find it without a request); a byte count for only that many first
        /// bytes, into the chunk store (fast starts, a bounded cost per video). Applies to items the list
        /// names `video` and to URLs with a video extension; a video recognized only by its bytes has
        /// been downloaded whole by then and stays so. Default nil.
        public var videoPrefix: Int64?
        /// How many distinct keys the duplicate filter holds before it starts again. Default 1,000,000.
        public var duplicateWindow: Int
        /// Warm the manager's cache tier only: each URL is fetched through the tier (whose node that
        /// owns it fetches and keeps it) and nothing is stored here. Needs a tier in the loader's
        /// configuration; ``validate`` does not apply. Default false.
        public var warmsTierOnly: Bool
        /// Image variants to make of every image (``ImageUtil/variant(for:transform:accepting:options:)``),
        /// or, with ``warmsTierOnly``, to have the tier node make (`/v1/image`). A `format=auto`
        /// variant is made for each answer a browser can get: AVIF, WebP and JPEG or PNG. Variants
        /// with a frame (`frame=0,w=320`) are made of every Lottie animation instead (a source whose
        /// kind the list, the extension or the first bytes say is `lottie`). Default none.
        public var variants: [ImageTransform]
        /// How animations are read and their frames rendered, for validation and for variants
        /// with a frame; `renderWorkers` renders them in worker processes. Default: the util's
        /// defaults (in this process).
        public var lottie: LottieUtil.Configuration
        /// Worker processes that decode HEIF, AVIF, TIFF, SVG and JPEG XL sources, for validation and
        /// variants (``ImageUtil/Configuration/decodeWorkers``): a crash in one of their libraries
        /// fails that item, never the prefetch. Default nil (in this process).
        public var imageWorkers: WorkerPool?

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            concurrency: Int = 8,
            perHost: Int = 4,
            rate: Double? = nil,
            strategy: CacheStrategy = .useProtocolCachePolicy,
            validate: Bool = false,
            videoPrefix: Int64? = nil,
            duplicateWindow: Int = 1_000_000,
            warmsTierOnly: Bool = false,
            variants: [ImageTransform] = [],
            lottie: LottieUtil.Configuration = LottieUtil.Configuration(),
            imageWorkers: WorkerPool? = nil
        ) {
            self.imageWorkers = imageWorkers
            self.variants = variants
            self.lottie = lottie
            self.concurrency = concurrency
            self.perHost = perHost
            self.rate = rate
            self.strategy = strategy
            self.validate = validate
            self.videoPrefix = videoPrefix
            self.duplicateWindow = duplicateWindow
            self.warmsTierOnly = warmsTierOnly
        }
    }
}
