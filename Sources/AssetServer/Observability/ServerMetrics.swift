import AssetLoading
import AssetPipeline
import AssetStorage
import AssetWorkers
import Prometheus
import Synchronization

/// The service's metrics in one Prometheus registry (the one the manager's loader also counts its
/// loads in, through swift-metrics): requests by endpoint and status, cache lookups by layer and
/// kind, bytes from the origin and to clients, revalidations, evictions, coalesced loads, and
/// latency histograms of fetches, decodes and whole requests; with render worker processes, what
/// they did (started, jobs by result, running).
///
/// Counters are created once per label set and kept; the cumulative figures of the caches
/// (evictions, coalesced loads) are brought up to date when the metrics are read.
final class ServerMetrics: Sendable {
    /// The layers a lookup can hit.
    enum Layer: String, Sendable, CaseIterable {
        case memory, disk, chunks
    }

    let registry: PrometheusCollectorRegistry
    private let manager: AssetsManager
    private let requests = Mutex<[RequestKey: RequestSeries]>([:])
    /// One counter per layer, kind and result, made at once: a lookup is one atomic increment.
    private let lookups: [Counter]
    private let clientBytes: Counter
    private let originBytes: Counter
    private let revalidations: Counter
    private let fetches: DurationHistogram
    /// Evictions of the memory caches, the disk cache and the chunk store, in that order.
    private let evictions: [Counter]
    private let coalesced: Counter
    private let decodes = Mutex<[String: DurationHistogram]>([:])
    private let transforms = Mutex<[String: Counter]>([:])
    private let transformDurations: DurationHistogram
    /// Variant lookups by result: memory, disk, derivedStore, miss.
    private let variantLookups: [String: Counter]
    private let refusals = Mutex<[String: Counter]>([:])
    private let scraped = Mutex(Scraped())
    /// The render worker pool and its series, when frames render in worker processes.
    private let renderWorkers: RenderWorkerSeries?
    /// The render worker pool's statistics last exported (nil before the first scrape).
    private let scrapedWorkers = Mutex<WorkerPool.Statistics?>(nil)

    private struct RequestKey: Hashable {
        var endpoint: String
        var status: Int
    }

    /// The cumulative figures last exported, so that a scrape adds what happened since.
    private struct Scraped {
        var diskEvictions = 0
        var chunkEvictions = 0
        var memoryEvictions = 0
        var coalesced = 0
    }

    /// The series of a render worker pool, brought up to date from its statistics when read.
    private struct RenderWorkerSeries: Sendable {
        let pool: WorkerPool
        let started: Counter
        /// Jobs by result: done, failed, crashed, timed_out.
        let jobs: [String: Counter]
        let running: Gauge
    }

    /// The metric names and help texts (one place, since the registry requires the same help for
    /// every label set of a name).
    enum Name {
        static func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "assetpipe", metricName: name, unitName: unit, helpText: help)
        }
        static var requests: MetricNameDescriptor { descriptor("requests", "total", "Requests answered, by endpoint and status.") }
        static var requestDuration: MetricNameDescriptor { descriptor(
            "request_duration", "seconds", "Time from a request's head to its response's last byte, by endpoint.") }
        static var lookups: MetricNameDescriptor { descriptor("cache_lookups", "total", "Cache lookups by layer (memory, disk, chunks), kind and result.") }
        static var clientBytes: MetricNameDescriptor { descriptor("client_bytes", "total", "Body bytes sent to clients.") }
        static var originBytes: MetricNameDescriptor { descriptor("origin_bytes", "total", "Body bytes received from origins.") }
        static var revalidations: MetricNameDescriptor { descriptor("revalidations", "total", "Stored answers the origin confirmed unchanged (304).") }
        static var fetchDuration: MetricNameDescriptor { descriptor("fetch_duration", "seconds", "Loads that went to the origin, from start to the stored body.") }
        static var decodeDuration: MetricNameDescriptor { descriptor("decode_duration", "seconds", "Image decodes and Lottie parses, by kind.") }
        static var evictions: MetricNameDescriptor { descriptor("evictions", "total", "Entries evicted by the cache limits, by layer.") }
        static var coalesced: MetricNameDescriptor { descriptor("coalesced_requests", "total", "Loads that joined an identical load in flight.") }
        static var transforms: MetricNameDescriptor { descriptor("image_transforms", "total", "Image variants made (decode, transform, encode), by output format.") }
        static var transformDuration: MetricNameDescriptor { descriptor(
            "image_transform_duration", "seconds", "Time to make an image variant, a wait for a turn of the transform queue included.") }
        static var variantLookups: MetricNameDescriptor { descriptor(
            "image_variant_lookups", "total", "Image variant requests by where the variant came from (memory, disk, derivedStore, miss).") }
        static var refusals: MetricNameDescriptor { descriptor("image_refusals", "total", "Image service requests answered with an error, by error code.") }
        static var workersStarted: MetricNameDescriptor { descriptor("render_workers_started", "total", "Render worker processes started (a crashed or killed one is replaced).") }
        static var renderJobs: MetricNameDescriptor { descriptor(
            "render_jobs", "total", "Frames asked of render worker processes, by result (done, failed, crashed, timed_out).") }
        static var workersRunning: MetricNameDescriptor { descriptor("render_workers_running", "", "Render worker processes running now.") }
    }

    static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30),
    ]

    init(manager: AssetsManager, registry: PrometheusCollectorRegistry, renderWorkers pool: WorkerPool? = nil) {
        self.manager = manager
        self.registry = registry
        renderWorkers = pool.map { pool in
            var jobs: [String: Counter] = [:]
            for result in ["done", "failed", "crashed", "timed_out"] {
                jobs[result] = registry.makeCounter(descriptor: Name.renderJobs, labels: [("result", result)])
            }
            return RenderWorkerSeries(
                pool: pool, started: registry.makeCounter(descriptor: Name.workersStarted), jobs: jobs,
                running: registry.makeGauge(descriptor: Name.workersRunning))
        }
        var lookups: [Counter] = []
        for layer in Layer.allCases {
            for kind in AssetKind.allCases {
                for hit in [false, true] {
                    lookups.append(registry.makeCounter(
                        descriptor: Name.lookups,
                        labels: [("layer", layer.rawValue), ("kind", kind.rawValue), ("result", hit ? "hit" : "miss")]))
                }
            }
        }
        self.lookups = lookups
        clientBytes = registry.makeCounter(descriptor: Name.clientBytes)
        originBytes = registry.makeCounter(descriptor: Name.originBytes)
        revalidations = registry.makeCounter(descriptor: Name.revalidations)
        fetches = registry.makeDurationHistogram(descriptor: Name.fetchDuration, buckets: Self.latencyBuckets)
        // present from the start, so that a scrape shows them at 0
        evictions = ["memory", "disk", "chunks"].map { registry.makeCounter(descriptor: Name.evictions, labels: [("layer", $0)]) }
        coalesced = registry.makeCounter(descriptor: Name.coalesced)
        transformDurations = registry.makeDurationHistogram(descriptor: Name.transformDuration, buckets: Self.latencyBuckets)
        var variantLookups: [String: Counter] = [:]
        for result in ["memory", "disk", "derivedStore", "miss"] {
            variantLookups[result] = registry.makeCounter(descriptor: Name.variantLookups, labels: [("result", result)])
        }
        self.variantLookups = variantLookups
    }

    /// Counts a variant made in `format` and its time.
    func recordTransform(format: String, seconds: Double) {
        counter(in: transforms, Name.transforms, label: "format", format).increment()
        transformDurations.record(.nanoseconds(Int64(seconds * 1e9)))
    }

    /// Counts a variant request by where its variant came from: `memory`, `disk`, `derivedStore` or `miss`.
    func recordVariantLookup(_ result: String) {
        variantLookups[result]?.increment()
    }

    /// Counts an image service request answered with the error `code`.
    func recordRefusal(code: String) {
        counter(in: refusals, Name.refusals, label: "code", code).increment()
    }

    /// The counter of `descriptor` with one label, made on first use and kept in `counters`.
    private func counter(in counters: borrowing Mutex<[String: Counter]>, _ descriptor: MetricNameDescriptor, label: String, _ value: String) -> Counter {
        counters.withLock { counters in
            if let counter = counters[value] { return counter }
            let counter = registry.makeCounter(descriptor: descriptor, labels: [(label, value)])
            counters[value] = counter
            return counter
        }
    }

    /// The counter and latency histogram of one endpoint and status.
    struct RequestSeries: Sendable {
        let counter: Counter
        let histogram: DurationHistogram
    }

    /// The series of `endpoint` and `status`, made on first use and kept.
    func requestSeries(endpoint: String, status: Int) -> RequestSeries {
        let key = RequestKey(endpoint: endpoint, status: status)
        return requests.withLock { requests in
            if let series = requests[key] { return series }
            let series = RequestSeries(
                counter: registry.makeCounter(
                    descriptor: Name.requests, labels: [("endpoint", endpoint), ("status", String(status))]),
                histogram: registry.makeDurationHistogram(
                    descriptor: Name.requestDuration, labels: [("endpoint", endpoint)], buckets: Self.latencyBuckets))
            requests[key] = series
            return series
        }
    }

    /// Counts a request, its latency and the body bytes sent.
    func recordRequest(endpoint: String, status: Int, seconds: Double, bytesSent: Int64, cacheStatus: String?) {
        recordRequest(requestSeries(endpoint: endpoint, status: status), seconds: seconds, bytesSent: bytesSent)
    }

    /// Counts a request in a series already looked up (the hot path keeps its series).
    func recordRequest(_ series: RequestSeries, seconds: Double, bytesSent: Int64) {
        series.counter.increment()
        series.histogram.record(.nanoseconds(Int64(seconds * 1e9)))
        if bytesSent > 0 { clientBytes.increment(by: bytesSent) }
    }

    /// Counts a lookup in one layer for one kind.
    func recordLookup(layer: Layer, kind: AssetKind, hit: Bool) {
        lookups[Self.lookupIndex(layer: layer, kind: kind, hit: hit)].increment()
    }

    private static func lookupIndex(layer: Layer, kind: AssetKind, hit: Bool) -> Int {
        let layerIndex = Layer.allCases.firstIndex(of: layer)!
        let kindIndex = AssetKind.allCases.firstIndex(of: kind)!
        return (layerIndex * AssetKind.allCases.count + kindIndex) * 2 + (hit ? 1 : 0)
    }

    /// Counts what a loader's answer cost: origin bytes, a revalidation, the fetch's latency.
    func recordLoad(_ response: AssetResponse) {
        if response.bytesReceived > 0 { originBytes.increment(by: response.bytesReceived) }
        if response.outcome == .revalidated { revalidations.increment() }
        if response.attempts > 0 { fetches.record(.nanoseconds(Int64(response.timings.duration * 1e9))) }
    }

    /// Counts body bytes a range read took from the origin.
    func recordOriginBytes(_ bytes: Int64) {
        if bytes > 0 { originBytes.increment(by: bytes) }
    }

    /// Records how long a decode (`image`) or a parse (`lottie`) took.
    func recordDecode(kind: String, seconds: Double) {
        let histogram = decodes.withLock { decodes in
            if let histogram = decodes[kind] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: Name.decodeDuration, labels: [("kind", kind)], buckets: Self.latencyBuckets)
            decodes[kind] = histogram
            return histogram
        }
        histogram.record(.nanoseconds(Int64(seconds * 1e9)))
    }

    /// Adds what the render worker pool did since the last scrape.
    private func update(_ series: RenderWorkerSeries) {
        // read under the lock, so that two scrapes at once count each job once
        let (now, last) = scrapedWorkers.withLock { last -> (WorkerPool.Statistics, WorkerPool.Statistics?) in
            let now = series.pool.statistics
            defer { last = now }
            return (now, last)
        }
        func delta(_ figure: KeyPath<WorkerPool.Statistics, Int>) -> Int64 {
            Int64(max(0, now[keyPath: figure] - (last?[keyPath: figure] ?? 0)))
        }
        series.started.increment(by: delta(\.started))
        let figures: [(String, KeyPath<WorkerPool.Statistics, Int>)] = [
            ("done", \.done), ("failed", \.failed), ("crashed", \.crashed), ("timed_out", \.timedOut),
        ]
        for (result, figure) in figures {
            series.jobs[result]?.increment(by: delta(figure))
        }
        series.running.set(Int64(now.running))
    }

    /// The Prometheus text exposition, with the caches' cumulative figures brought up to date.
    func exposition() -> [UInt8] {
        let disk = manager.diskCache.isOpen ? manager.diskCache.statistics.evictions : 0
        let chunks = manager.chunkStore.statistics.evictedChunks
        let memory = AssetKind.allCases.reduce(0) { $0 + manager.memoryCache(for: $1).statistics.evictions }
        let joined = manager.loader.coalescedLoads
        let deltas = scraped.withLock { last -> (Int, Int, Int, Int) in
            defer { last = Scraped(diskEvictions: disk, chunkEvictions: chunks, memoryEvictions: memory, coalesced: joined) }
            return (max(0, disk - last.diskEvictions), max(0, chunks - last.chunkEvictions),
                    max(0, memory - last.memoryEvictions), max(0, joined - last.coalesced))
        }
        if let series = renderWorkers { update(series) }
        evictions[1].increment(by: Int64(deltas.0))
        evictions[2].increment(by: Int64(deltas.1))
        evictions[0].increment(by: Int64(deltas.2))
        coalesced.increment(by: Int64(deltas.3))
        var out: [UInt8] = []
        registry.emit(into: &out)
        return out
    }
}
