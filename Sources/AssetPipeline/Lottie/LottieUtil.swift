import AssetLoading
import AssetLottie
import AssetLottieRender
import AssetStorage
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lottie animations by URL as parsed models, over the ``AssetsManager`` with `.lru(.lottie)`: the
/// model memoized in the lottie memory cache, the source bytes on disk through the loader.
///
/// ```swift
/// let lottie = LottieUtil(manager: manager)
/// let animation = try await lottie.animation(for: url)
/// print(animation.durationSeconds ?? 0)
/// ```
///
/// - **A hit** is a synchronous look-up under the memory cache's lock (``cachedAnimation(for:options:)``,
///   or the first step of ``animation(for:options:)``): no URL parsing, no actor, no suspension.
///   The key is the cache key (the URL's default key, or ``Options/cacheKey``), plus `strict`.
/// - **Cost**: each memoized document costs ``estimatedCost(of:)`` bytes: the JSON structure it
///   was parsed from (after decompression) times ``modelBytesPerJSONByte``, a ratio measured on the
///   corpus (see there), plus its embedded images' bytes.
/// - **A miss** loads the bytes through the loader (disk cache, revalidation or download, as
///   ``Options/strategy`` says), reads them off Swift's cooperative pool (plain JSON, `.tgs` or
///   dotLottie, sniffed from the bytes) and memoizes the result (unless ``Options/keepInMemory`` is
///   false). Concurrent requests for the same key share one load and one parse. Failures are not
///   memoized.
/// - **dotLottie**: ``document(for:options:)`` returns every animation of the archive;
///   ``animation(for:options:)`` returns the default one (`LottieDocument.defaultEntry`: the
///   manifest's `activeAnimationId` / `initial.animation`, else the first listed).
/// - **Bad bytes**: when loaded bytes cannot be read (any `LottieError` but `validationFailed`:
///   bytes that parse but fail strict validation are a readable animation, and stay), their disk
///   cache entry is removed so the next request fetches them again; then the error is thrown.
///
/// Errors: `LottieError` for bytes that do not parse (or fail strict validation), `LoaderError` for
/// loads that fail, `CancellationError` for a caller cancelled while it waited.
public final class LottieUtil: Sendable {
    /// The manager whose loader fetches the bytes and whose lottie memory cache keeps the parsed models.
    public let manager: AssetsManager
    /// The reader's limits and the parse threads.
    public let configuration: Configuration
    let loads: MemoizedLoader<Memoized>
    let parses = Atomic<Int>(0)
    /// Renders frames (`frame(for:at:size:options:)`) with ``Configuration/renderer``'s limits.
    let renderer: LottieFrameRenderer

    /// What the lottie memory cache holds: the document and its default animation, picked once.
    final class Memoized: Sendable {
        let document: LottieDocument
        let primary: LottieAnimation

        init(document: LottieDocument) throws(LottieError) {
            guard let primary = document.defaultEntry?.animation else { throw LottieError.animationNotFound }
            self.document = document
            self.primary = primary
        }
    }

    /// Creates the util over `manager`'s loader and caches.
    public init(manager: AssetsManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
        self.loads = MemoizedLoader(manager: manager, kind: .lottie)
        self.renderer = LottieFrameRenderer(configuration: configuration.renderer)
    }

    /// Parses started by this util (memory hits and coalesced callers start none).
    public var parseCount: Int { parses.load(ordering: .relaxed) }

    /// The animation at `url`: from memory, else loaded and parsed. For a dotLottie with several
    /// animations, the default one (see `LottieDocument.defaultEntry`).
    public func animation(for url: URL, options: Options = Options()) async throws -> LottieAnimation {
        let urlString = url.absoluteString
        let key = memoryKey(forURL: urlString, options: options)
        // The hit is checked here, not in a callee: one async frame fewer on the hot path.
        if let hit = loads.cached(key, strategy: options.strategy) { return hit.primary }
        return try await load(url, memoryKey: key, options: options).primary
    }

    /// Every animation at `url` (one for plain JSON and `.tgs`, all of a dotLottie's), with the
    /// manifest; memoized as ``animation(for:options:)`` is (the two share one entry).
    public func document(for url: URL, options: Options = Options()) async throws -> LottieDocument {
        let urlString = url.absoluteString
        let key = memoryKey(forURL: urlString, options: options)
        if let hit = loads.cached(key, strategy: options.strategy) { return hit.document }
        return try await load(url, memoryKey: key, options: options).document
    }

    /// The animation in memory for `url` and `options`, or nil; never loads. Synchronous.
    public func cachedAnimation(for url: URL, options: Options = Options()) -> LottieAnimation? {
        loads.memory.object(Memoized.self, forKey: memoryKey(forURL: url.absoluteString, options: options))?.primary
    }

    /// The memory-cache key of `url` with `options`.
    public func memoryKey(for url: URL, options: Options = Options()) -> String {
        memoryKey(forURL: url.absoluteString, options: options)
    }

    func memoryKey(forURL url: String, options: Options) -> String {
        let key = CacheKeys.key(for: url, custom: options.cacheKey)
        return options.strict ? key + "\u{1F}lottie;strict" : key
    }

    /// A miss: the shared load of `memoryKey`, read by ``read(_:options:)``. A `LottieError` other
    /// than `validationFailed` means bad bytes.
    private func load(_ url: URL, memoryKey: String, options: Options) async throws -> Memoized {
        let request = MemoizedLoader<Memoized>.Request(
            url: url, memoryKey: memoryKey, kind: .lottie, strategy: options.strategy, cacheKey: options.cacheKey,
            keepInMemory: options.keepInMemory)
        return try await loads.load(request, with: .init(
            read: { data in try Memoized(document: try await self.read(data, options: options)) },
            cost: { Self.estimatedCost(of: $0.document) },
            isBadBytes: { error in (error as? LottieError).map { $0 != .validationFailed } ?? false }))
    }
}
