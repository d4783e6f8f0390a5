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

    /// The peak resident set size of this process in bytes, from /proc/self/status (VmHWM).
    static func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    @Test(.enabled(if: !AddressSanitizer.isActive, "peak memory is not meaningful under AddressSanitizer"))
    func streams200MegabytesToTheCacheWithoutHoldingThem() async throws {
        try await ProcessMemoryLock.shared.exclusive {
            try await withOriginAndLoader { origin, harness in
                let length = 200 * 1024 * 1024
                origin.setRoute("/huge", .response(TestResponse(headers: [("Cache-Control", "max-age=3600")], body: .generated(length: length))))
                let peakBefore = try Self.peakResidentBytes()
                let response = try await harness.loader.load(AssetRequest(url: origin.location("/huge"), kind: .video))
                #expect(response.outcome == .downloaded)
                #expect(response.size == Int64(length))
                let metadata = try #require(try harness.cache.metadata(forKey: response.cacheKey))
                #expect(metadata.size == Int64(length))
                let growth = try Self.peakResidentBytes() - peakBefore
                #expect(growth < 100 * 1024 * 1024, "peak resident size grew by \(growth) bytes")
                // the stored file holds the pattern the origin sent, at both ends
                let enumerator = try #require(FileManager.default.enumerator(atPath: harness.directory.path))
                let dataFiles = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".data") }
                #expect(dataFiles.count == 1)
                let handle = try FileHandle(forReadingFrom: harness.directory.appendingPathComponent(try #require(dataFiles.first)))
                defer { try? handle.close() }
                let head = try #require(try handle.read(upToCount: 1000))
                try handle.seek(toOffset: UInt64(length - 1000))
                let tail = try #require(try handle.read(upToCount: 1000))
                #expect(Array(head) == TestContent.generatedBytes(0..<1000))
                #expect(Array(tail) == TestContent.generatedBytes((length - 1000)..<length))
            }
        }
    }
}
