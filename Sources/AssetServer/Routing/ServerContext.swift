import AssetLoading
import AssetPipeline
import Logging
import Synchronization

/// What every endpoint uses: the manager and the utils over it, the metrics, the prefetch jobs.
final class ServerContext: Sendable {
    let configuration: AssetServer.Configuration
    let manager: AssetsManager
    let images: ImageUtil
    let lottie: LottieUtil
    let video: VideoUtil
    /// Variants of video frames, read by range through ``video``'s chunk store.
    let videoFrames: VideoFrameVariants
    /// Storyboards of videos, read by range through ``video``'s chunk store.
    let storyboards: VideoStoryboards
    let metrics: ServerMetrics
    let jobs: PrefetchJobs
    let state = ServerState()
    /// The freshness rules of the manager's loader (a shared cache), for hot answers.
    let policy: FreshnessPolicy
    /// The origin of reverse-proxy mode.
    let origin: OriginURL?
    /// Cache keys the loader found too large to keep whole: served through the chunk store.
    let largeAssets = KeySet(capacity: 65_536)
    let logger: Logger

    init(manager: AssetsManager, configuration: AssetServer.Configuration, logger: Logger) {
        self.configuration = configuration
        self.manager = manager
        let metrics = ServerMetrics(manager: manager, registry: configuration.metrics, renderWorkers: configuration.lottie.renderWorkers)
        self.metrics = metrics
        var images = configuration.images.util
        let observe = images.onTransform
        images.onTransform = { format, seconds in
            metrics.recordTransform(format: format.rawValue, seconds: seconds)
            observe?(format, seconds)
        }
        let lottie = LottieUtil(manager: manager, configuration: configuration.lottie)
        self.lottie = lottie
        self.images = ImageUtil(manager: manager, configuration: images, lottie: lottie)
        // a video's frames decode where a Lottie frame renders (`assetpipe worker` serves both)
        let video = VideoUtil(
            manager: manager,
            configuration: .init(
                readAheadChunks: configuration.readAheadChunks, frameWorkers: configuration.lottie.renderWorkers,
                frameDecoder: .init(maxPixels: configuration.images.maxSourcePixels)),
            logger: logger)
        self.video = video
        self.videoFrames = VideoFrameVariants(images: self.images, video: video)
        self.storyboards = VideoStoryboards(images: self.images, video: video)
        self.jobs = PrefetchJobs(manager: manager, configuration: configuration, logger: logger)
        self.policy = FreshnessPolicy(configuration: manager.configuration.loader.freshness)
        self.origin = configuration.origin.flatMap(OriginURL.init)
        self.logger = logger
    }

    /// The clock of the manager's loader.
    var now: Foundation.Date { manager.configuration.loader.clock.now }
}

import Foundation

/// Whether the server takes requests: `/readyz` answers 503 before it listens and while it drains.
final class ServerState: Sendable {
    private enum Phase { case starting, ready, draining }
    private struct State {
        var phase = Phase.starting
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func markReady() { state.withLock { $0.phase = .ready } }

    func markDraining() {
        let waiters = state.withLock { state in
            state.phase = .draining
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isReady: Bool { state.withLock { $0.phase == .ready } }

    /// Returns once the server has begun to drain (at once if it has).
    func waitUntilDraining() async {
        await withCheckedContinuation { continuation in
            let draining = state.withLock { state in
                if state.phase == .draining { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if draining { continuation.resume() }
        }
    }
}

/// A bounded set of keys (it starts again when full).
final class KeySet: Sendable {
    private let keys = Mutex<Set<String>>([])
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func insert(_ key: String) {
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys.insert(key)
        }
    }

    func contains(_ key: String) -> Bool { keys.withLock { $0.contains(key) } }

    func remove(_ key: String) { keys.withLock { _ = $0.remove(key) } }
}
