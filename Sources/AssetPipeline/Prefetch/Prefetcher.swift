import AssetLoading
import AssetStorage
import Foundation
import Synchronization

/// Fetches the URLs of a list into the cache, a few at a time, and reports each item.
///
/// Every item is downloaded whole into the disk cache, videos included, unless
/// ``Configuration/videoPrefix`` is set: then a video (named so by the list, or by its URL's
/// extension) is fetched as its first bytes into the chunk store through ``VideoUtil``. Either way a
/// second run with the same configuration finds what the first stored where it put it.
///
/// The list is streamed (a ``PrefetchListFeed``): memory stays flat whatever its length. Each
/// URL goes through the manager's loader with the configured strategy, so a URL that is cached and
/// fresh costs no request, and a second run over the same list fetches only what changed.
/// Duplicates within a run are fetched once. ``stop()`` ends a run early: no new item starts, the
/// loads in flight are cancelled (the disk cache keeps nothing partial), and
/// ``run(_:onResult:)-(PrefetchListFeed,_)`` returns the summary with `interrupted` set.
public final class Prefetcher: Sendable {
    /// The manager whose loader fetches the items and whose caches keep them.
    public let manager: AssetsManager
    /// The concurrency, rate, strategy and checks of the runs.
    public let configuration: Configuration

    private struct State {
        var summary = PrefetchSummary()
        var start: ContinuousClock.Instant?
        var stopped = false
        var feed: PrefetchListFeed?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let hosts: HostLimiter
    private let pacer: RequestPacer?
    private let duplicates: DuplicateFilter
    /// The utils that validate what was fetched.
    let images: ImageUtil
    let animations: LottieUtil
    let videos: VideoUtil
    /// The variants of video frames, read by range (`--variant frame=...` of a video).
    let videoFrames: VideoFrameVariants

    /// Creates a prefetcher over `manager`'s loader and caches.
    public init(manager: AssetsManager, configuration: Configuration = Configuration()) {
        self.manager = manager
        self.configuration = configuration
        hosts = HostLimiter(limit: configuration.perHost)
        pacer = configuration.rate.flatMap { $0 > 0 && $0.isFinite ? RequestPacer(rate: $0) : nil }
        duplicates = DuplicateFilter(capacity: configuration.duplicateWindow)
        animations = LottieUtil(manager: manager, configuration: configuration.lottie)
        var imageConfiguration = ImageUtil.Configuration()
        imageConfiguration.decodeWorkers = configuration.imageWorkers
        images = ImageUtil(manager: manager, configuration: imageConfiguration, lottie: animations)
        // a video's frames decode where a Lottie frame renders (`assetpipe worker` serves both)
        videos = VideoUtil(manager: manager, configuration: .init(frameWorkers: configuration.lottie.renderWorkers))
        videoFrames = VideoFrameVariants(images: images, video: videos)
    }

    /// The counts so far (``PrefetchSummary/elapsedSeconds`` up to now).
    public var progress: PrefetchSummary {
        state.withLock { state in
            var summary = state.summary
            if let start = state.start { summary.elapsedSeconds = (ContinuousClock.now - start).seconds }
            return summary
        }
    }

    /// Runs the list to its end (or until ``stop()``), calling `onResult` once per finished item, from
    /// any thread, and returns the summary. Run a prefetcher once.
    public func run(_ feed: PrefetchListFeed, onResult: @escaping @Sendable (PrefetchResult) -> Void) async -> PrefetchSummary {
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<max(1, configuration.concurrency) {
                    group.addTask { await self.work(feed, onResult: onResult) }
                }
            }
        }
        let stopAtOnce = state.withLock { state in
            state.start = .now
            state.feed = feed
            state.task = task
            return state.stopped
        }
        if stopAtOnce { stop() }
        await withTaskCancellationHandler { await task.value } onCancel: { self.stop() }
        return progress
    }

    /// Stops the run: no new item starts and the items in flight are cancelled.
    public func stop() {
        let (feed, task) = state.withLock { state in
            state.stopped = true
            state.summary.interrupted = true
            return (state.feed, state.task)
        }
        feed?.stop()
        hosts.close()
        task?.cancel()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// One worker: takes lines until the list ends or the run stops.
    private func work(_ feed: PrefetchListFeed, onResult: @Sendable (PrefetchResult) -> Void) async {
        while !isStopped, let line = await feed.next() {
            guard let result = await process(line) else { continue }
            if result.failure?.code == "cancelled" || (isStopped && result.failure != nil) {
                state.withLock { $0.summary.cancelled += 1 }
                continue
            }
            state.withLock { $0.summary.record(result) }
            onResult(result)
        }
    }

    /// The result of one line; nil for a blank, comment or duplicate line.
    private func process(_ line: PrefetchListFeed.Line) async -> PrefetchResult? {
        switch PrefetchLine.parse(line.text) {
        case nil:
            return nil
        case .malformed(let text, let reason):
            return .failed(url: text, line: line.number, kind: nil, status: nil, .init(code: "malformed", message: reason))
        case .item(let url, let kind):
            let key = AssetLoader.defaultCacheKey(for: url)
            if duplicates.isDuplicate(key) {
                state.withLock { $0.summary.duplicates += 1 }
                return nil
            }
            let host = String(Self.origin(ofKey: key))
            guard await hosts.acquire(host) else { return Self.cancelled(url, line.number, kind) }
            defer { hosts.release(host) }
            do {
                try await pacer?.wait()
                return try await fetch(url, kind: kind, line: line.number)
            } catch {
                if error is CancellationError { return Self.cancelled(url, line.number, kind) }
                return .failed(url: url, line: line.number, kind: kind, status: (error as? LoaderError)?.status, Self.failure(error))
            }
        }
    }

    /// Loads one URL, guesses its kind when the list did not name it, and validates it if asked.
    private func fetch(_ url: String, kind: AssetKind?, line: Int) async throws -> PrefetchResult {
        var result = try await fetchSource(url, kind: kind, line: line)
        let transforms = Self.variants(configuration.variants, of: result.kind, named: kind)
        guard !transforms.isEmpty, result.failure == nil else { return result }
        do {
            result.variants = try await warmVariants(transforms, of: url, kind: result.kind)
        } catch let error where !(error is CancellationError) {
            result.failure = PrefetchResult.Failure(code: "variant_failed", message: "a variant could not be made: \(error)")
        }
        return result
    }

    private func fetchSource(_ url: String, kind: AssetKind?, line: Int) async throws -> PrefetchResult {
        if configuration.warmsTierOnly {
            return try await warmTier(url, kind: kind, line: line)
        }
        // the kind before any byte arrives (the list's, else the extension's) picks the path, so that
        // a named and a guessed video go the same way
        let requestKind = kind ?? KindSniffer.kind(ofPath: url) ?? .raw
        if requestKind == .video, let prefix = configuration.videoPrefix {
            return try await prefetchVideo(url, prefix: prefix, line: line)
        }
        let response = try await manager.load(AssetRequest(url: try AssetRequest.location(url), kind: requestKind, strategy: configuration.strategy))
        // Without a named kind, the first bytes decide it (and serve the validation after).
        var head: [UInt8]?
        let resolved: AssetKind
        if let kind {
            resolved = kind
        } else {
            let bytes = try await firstBytes(of: response)
            head = bytes
            resolved = KindSniffer.guess(contentType: response.headers["Content-Type"], prefix: bytes, url: response.url)
        }
        if configuration.validate {
            do {
                try await validate(response, kind: resolved, head: head)
            } catch let failure as PrefetchResult.Failure {
                try await discard(response)
                return .failed(
                    url: url, line: line, kind: resolved, status: response.status,
                    bytesDownloaded: response.bytesReceived, failure)
            }
        }
        var stored = false
        if case .cacheEntry = response.body { stored = true }
        if stored, resolved == .video, requestKind != .video, response.outcome == .downloaded {
            // a video known only by its bytes, now whole in the disk cache: its chunks go
            try await manager.dropChunks(ofURL: url)
        }
        var result = PrefetchResult(
            url: url, line: line, outcome: response.outcome.rawValue, kind: resolved, status: response.status,
            bytes: response.size, bytesDownloaded: response.bytesReceived, stored: stored, failure: nil,
            node: response.route?.node)
        result.storeFailure = response.storeFailure?.description
        return result
    }

    /// Has the tier node that owns `url` fetch and keep it; the outcome is the node's
    /// (`downloaded` on its miss, `cached`, `revalidated`).
    private func warmTier(_ url: String, kind: AssetKind?, line: Int) async throws -> PrefetchResult {
        let requestKind = kind ?? KindSniffer.kind(ofPath: url)
        let warmed = try await manager.loader.warmTier(for: try AssetRequest.location(url), kind: requestKind)
        let outcome: String
        switch warmed.cacheStatus {
        case "memory", "disk", "chunks": outcome = "cached"
        case "revalidated": outcome = "revalidated"
        case "stale": outcome = "stale"
        default: outcome = "downloaded"
        }
        return PrefetchResult(
            url: url, line: line, outcome: outcome, kind: requestKind, status: warmed.status, bytes: warmed.bytes,
            bytesDownloaded: warmed.bytes, stored: false, failure: nil, node: warmed.node)
    }

    /// The first ``KindSniffer/prefixLength`` bytes of a response's body (a peek at a cache entry:
    /// no checksum pass, no recorded access).
    func firstBytes(of response: AssetResponse) async throws -> [UInt8] {
        switch response.body {
        case .cacheEntry where response.bodyPrefix != nil:
            // The loader kept the first bytes (as they passed, or read with the metadata): no read here.
            return Array((response.bodyPrefix ?? []).prefix(KindSniffer.prefixLength))
        case .cacheEntry(let metadata):
            let disk = manager.diskCache
            return try await manager.runIO { try disk.peek(forKey: metadata.key, count: KindSniffer.prefixLength) } ?? []
        case .data(let data):
            return Array(data.prefix(KindSniffer.prefixLength))
        case .file:
            return []
        }
    }

    /// Removes a response that failed validation from the disk cache.
    private func discard(_ response: AssetResponse) async throws {
        guard case .cacheEntry(let metadata) = response.body else { return }
        let disk = manager.diskCache
        _ = try await manager.runIO { try disk.remove(key: metadata.key) }
    }

    /// `scheme://authority` of a cache key (a normalized URL, scheme and host already lowercased),
    /// the unit of the per-host limit: cut from the string, not parsed a second time.
    static func origin(ofKey key: String) -> Substring {
        let utf8 = key.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
              utf8[colon...].starts(with: "://".utf8)
        else { return key[...] }
        let rest = key[utf8.index(colon, offsetBy: 3)...]
        return key[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? key.endIndex)]
    }

    static func cancelled(_ url: String, _ line: Int, _ kind: AssetKind?) -> PrefetchResult {
        .failed(url: url, line: line, kind: kind, status: nil, .init(code: "cancelled", message: "the run was stopped"))
    }

    /// A failure as the report shows it.
    static func failure(_ error: any Error) -> PrefetchResult.Failure {
        switch error {
        case let error as LoaderError:
            if error == .cancelled { return .init(code: "cancelled", message: error.message) }
            return .init(code: error.shortDescription, message: error.message)
        case let error as StorageError:
            return .init(code: "storage", message: error.description)
        case let failure as PrefetchResult.Failure:
            return failure
        case let error as VideoError:
            return .init(code: "video", message: error.description)
        default:
            return .init(code: "error", message: "\(error)")
        }
    }
}

extension PrefetchResult.Failure: Error {}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
