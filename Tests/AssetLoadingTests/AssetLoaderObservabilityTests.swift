import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Metrics
import Synchronization
import Testing

/// A metrics backend that keeps every value, for checking what the loader reports.
final class AssetLoaderRecordingMetrics: MetricsFactory {
    final class Handler: CounterHandler, RecorderHandler, TimerHandler {
        let values = Mutex<[Int64]>([])
        func increment(by amount: Int64) { self.values.withLock { $0.append(amount) } }
        func reset() { self.values.withLock { $0.removeAll() } }
        func record(_ value: Int64) { self.values.withLock { $0.append(value) } }
        func record(_ value: Double) { self.values.withLock { $0.append(Int64(value)) } }
        func recordNanoseconds(_ duration: Int64) { self.values.withLock { $0.append(duration) } }
        var total: Int64 { self.values.withLock { $0.reduce(0, +) } }
    }

    private let handlers = Mutex<[String: Handler]>([:])

    private func handler(_ label: String, _ dimensions: [(String, String)]) -> Handler {
        let key = Self.key(label, dimensions)
        return self.handlers.withLock { handlers in
            if let handler = handlers[key] { return handler }
            let handler = Handler()
            handlers[key] = handler
            return handler
        }
    }

    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: ",")
    }

    /// The total of the counter with this label and these dimensions (0 when never created).
    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        self.handlers.withLock { $0[Self.key(label, dimensions)] }?.total ?? 0
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { self.handler(label, dimensions) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { self.handler(label, dimensions) }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { self.handler(label, dimensions) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

@Suite("AssetLoader metrics and large bodies")
struct AssetLoaderObservabilityTests {
    @Test func countsLoadsByKindAndOutcomeAndErrorsByCode() async throws {
        let metrics = AssetLoaderRecordingMetrics()
        try await withOriginAndLoader({ $0.metricsFactory = metrics }) { origin, harness in
            origin.setRoute("/m", .response(.ok("counted", headers: [("Cache-Control", "max-age=3600")])))
            origin.setRoute("/missing", .response(TestResponse(status: 404)))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/m"), kind: .image))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/m"), kind: .image))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/m"), kind: .image))
            _ = try? await harness.loader.load(AssetRequest(url: origin.location("/missing"), kind: .lottie))
        }
        #expect(metrics.total("assetpipe_loads_total", [("kind", "image"), ("outcome", "downloaded")]) == 1)
        #expect(metrics.total("assetpipe_loads_total", [("kind", "image"), ("outcome", "cached")]) == 2)
        #expect(metrics.total("assetpipe_load_errors_total", [("kind", "lottie"), ("code", "http_404")]) == 1)
    }

    /// The load runs in the LoaderWorker child: its peak memory is the loader's alone, whereas this
    /// process's moves with every test running beside it (a run of the whole suite once measured
    /// 163 MB of growth here that belonged to other tests).
    @Test(.enabled(if: !AddressSanitizer.isActive, "peak memory is not meaningful under AddressSanitizer"))
    func streams200MegabytesToTheCacheWithoutHoldingThem() async throws {
        try await withTestOrigin { origin in
            let length = 200 * 1024 * 1024
            origin.setRoute("/huge", .response(TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .generated(length: length))))
            let dir = try FaultDirectory()
            let cache = dir.path + "/cache"
            let worker = try FaultWorker([FaultWorker.binary, cache, origin.baseURL, "1"])
            let streamed = try await worker.send("stream /huge")
            try await worker.quit()
            #expect(streamed["outcome"] as? String == "downloaded", "\(streamed)")
            #expect(streamed["size"] as? Int == length)
            #expect(streamed["stored"] as? Bool == true)
            let growth = try #require(streamed["peakGrowth"] as? Int)
            #expect(growth >= 0 && growth < 100 * 1024 * 1024, "peak resident size grew by \(growth) bytes")
            // the stored entry holds the pattern the origin sent, at both ends
            let disk = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: cache), maxBytes: .max, maxCount: .max))
            let metadata = try #require(try disk.metadata(forKey: AssetLoader.defaultCacheKey(for: origin.url("/huge"))))
            disk.close()
            #expect(metadata.size == Int64(length))
            let enumerator = try #require(FileManager.default.enumerator(atPath: cache))
            let dataFiles = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".entry") }
            #expect(dataFiles.count == 1)
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: cache).appendingPathComponent(try #require(dataFiles.first)))
            defer { try? handle.close() }
            let head = try #require(try handle.read(upToCount: 1000))
            try handle.seek(toOffset: UInt64(length - 1000))
            let tail = try #require(try handle.read(upToCount: 1000))
            #expect(Array(head) == TestContent.generatedBytes(0..<1000))
            #expect(Array(tail) == TestContent.generatedBytes((length - 1000)..<length))
        }
    }
}
