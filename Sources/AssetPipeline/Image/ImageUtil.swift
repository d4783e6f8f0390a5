import AssetCodecs
import AssetLoading
import AssetStorage
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// PNG and JPEG images by URL as RGBA bitmaps, over the ``AssetsManager`` with
/// `.hybrid(.image)`: the decoded image in the image memory cache, the original bytes on disk.
///
/// ```swift
/// let images = ImageUtil(manager: manager)
/// let bitmap = try await images.image(for: url, options: .init(maxDimension: 512))
/// ```
///
/// - **A hit** (``cachedImage(for:options:)``, or the first step of ``image(for:options:)``) is a
///   synchronous look-up under the memory cache's lock. The key is the cache key (the URL's default
///   key, or ``Options/cacheKey``) plus the decoding options (``memoryKey(for:options:)``); the
///   entry's cost is the bitmap's byte count.
/// - **A miss** loads the bytes through the loader (from the disk cache, revalidated, or downloaded
///   and stored there, as ``Options/strategy`` says), decodes them and keeps the result in memory
///   (unless ``Options/keepInMemory`` is false).
/// - **Concurrent requests** for the same key and strategy share one load and one decode; requests
///   that differ only in options share the download (the loader coalesces it) and decode apart.
/// - **Decoding** runs on the configured pool (by default the manager's I/O threads), never on
///   Swift's cooperative pool, within a ``ByteBudget`` of ``Configuration/decodeBudget`` bytes.
/// - **Bad bytes**: when loaded bytes fail to decode with a data error (`corrupt`, `truncated`,
///   `unsupported`, `tooLarge`), their disk cache entry is removed, so the next request fetches
///   them again rather than failing on the same bytes until they expire; then the `CodecError` is
///   thrown. Failures are never memoized.
///
/// Errors: `CodecError` for bytes that do not decode, `LoaderError` for loads that fail,
/// `CancellationError` for a caller cancelled while it waited.
public final class ImageUtil: Sendable {
    /// The manager whose loader fetches the bytes and whose image memory cache keeps the bitmaps.
    public let manager: AssetsManager
    /// The decode budget, the input limit and the decode threads.
    public let configuration: Configuration
    /// The in-flight decode budget (its ``ByteBudget/peak`` shows how much decodes held at once).
    public let decodeBudget: ByteBudget
    let loads: MemoizedLoader<DecodedImage>
    let variants: VariantStore
    let decodes = Atomic<Int>(0)
    let transforms = Atomic<Int>(0)
    /// Reads and renders the animations of variants with a frame (`ImageTransform.frame`).
    public let lottie: LottieUtil

    /// Creates the util over `manager`'s loader and caches. `lottie` reads and renders the
    /// animations that variants with a frame are made of (its reader's and renderer's limits, its
    /// render worker processes); nil makes one over the same manager with the default
    /// configuration, which renders in this process.
    public init(manager: AssetsManager, configuration: Configuration = Configuration(), lottie: LottieUtil? = nil) {
        self.manager = manager
        self.configuration = configuration
        self.lottie = lottie ?? LottieUtil(manager: manager)
        self.decodeBudget = ByteBudget(capacity: configuration.decodeBudget)
        self.loads = MemoizedLoader(manager: manager, kind: .image)
        self.variants = VariantStore(
            memory: manager.memoryCache(for: .image),
            queue: TransformQueue(maxRunning: configuration.maxConcurrentTransforms, maxWaiting: configuration.maxQueuedTransforms),
            derived: configuration.derivedStore.map { DerivedStore(configuration: $0, httpClient: manager.loader.httpClient) })
    }

    /// The shared store of variants (``Configuration-swift.struct/derivedStore``), if any.
    public var derivedStore: DerivedStore? { variants.derived }

    /// Decodes started by this util (memory hits and coalesced callers start none).
    public var decodeCount: Int { decodes.load(ordering: .relaxed) }

    /// The image at `url` as an RGBA bitmap: from memory, else loaded and decoded.
    public func image(for url: URL, options: Options = Options()) async throws -> Bitmap {
        let urlString = url.absoluteString
        let key = memoryKey(forURL: urlString, options: options)
        // The hit is checked here, not in a callee: one async frame fewer on the hot path.
        if let hit = loads.cached(key, strategy: options.strategy) { return hit.bitmap }
        return try await load(url, memoryKey: key, options: options).bitmap
    }

    /// As ``image(for:options:)``, with the header the image was decoded from and the decoder's
    /// warnings (a memory hit returns those of the decode that filled it).
    public func decodedImage(for url: URL, options: Options = Options()) async throws -> DecodedImage {
        let urlString = url.absoluteString
        let key = memoryKey(forURL: urlString, options: options)
        if let hit = loads.cached(key, strategy: options.strategy) { return hit }
        return try await load(url, memoryKey: key, options: options)
    }

    /// The bitmap in memory for `url` and `options`, or nil; never loads. Synchronous.
    public func cachedImage(for url: URL, options: Options = Options()) -> Bitmap? {
        loads.memory.object(DecodedImage.self, forKey: memoryKey(for: url, options: options))?.bitmap
    }

    /// The memory-cache key of `url` with `options`: the cache key, plus the decoding options
    /// when they are not the defaults.
    public func memoryKey(for url: URL, options: Options = Options()) -> String {
        memoryKey(forURL: url.absoluteString, options: options)
    }

    func memoryKey(forURL url: String, options: Options) -> String {
        let key = CacheKeys.key(for: url, custom: options.cacheKey)
        guard let suffix = options.keySuffix else { return key }
        return key + suffix
    }

    /// A miss: the shared load of `memoryKey`, decoded by ``decode(_:options:)``.
    private func load(_ url: URL, memoryKey: String, options: Options) async throws -> DecodedImage {
        let request = MemoizedLoader<DecodedImage>.Request(
            url: url, memoryKey: memoryKey, kind: .image, strategy: options.strategy, cacheKey: options.cacheKey,
            keepInMemory: options.keepInMemory)
        return try await loads.load(request, with: .init(
            read: { data in try await self.decode(data, options: options) },
            cost: { $0.bitmap.cost },
            isBadBytes: { ($0 as? CodecError)?.isDataError == true }))
    }
}
