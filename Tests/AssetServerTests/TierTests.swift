import AssetImaging
import AssetLoading
import AssetPipeline
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

/// A second host's manager using an `AssetServer` as its cache tier.
@Suite("Cache tier")
struct TierTests {
    /// Runs `body` with a manager over a fresh directory whose loader goes through `tier`.
    static func withLocalManager<T>(tier: CacheTier, _ body: (AssetsManager) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-tier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = AssetsManager.Configuration(directory: directory)
        configuration.loader.tier = tier
        configuration.loader.retry = AssetLoader.RetryPolicy(maxAttempts: 1)
        configuration.chunks.chunkSize = 64 << 10
        let manager = try await AssetsManager.open(configuration: configuration)
        do {
            let result = try await body(manager)
            try await manager.shutdown()
            return result
        } catch {
            try? await manager.shutdown()
            throw error
        }
    }

    @Test func missesGoThroughTheTierAndKeepTheOriginsValidators() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.nodeName = "node-a" }) { harness in
            harness.origin.setRoute("/t.bin", .resource(TestResource(
                content: .bytes(Array("through the tier".utf8)), eTag: "\"t1\"", headers: [("Cache-Control", "max-age=0")])))
            let tier = try #require(CacheTier(url: URL(string: harness.base)!))
            try await Self.withLocalManager(tier: tier) { manager in
                let url = harness.origin.url("/t.bin")
                let first = try await manager.load(AssetRequest(url: URL(string: url)!))
                #expect(first.route == .tier(node: "node-a"))
                #expect(first.outcome == .downloaded)
                #expect(String(decoding: try await manager.loader.data(for: first), as: UTF8.self) == "through the tier")
                // stored here under the original URL, with the origin's ETag
                let metadata = try #require(try manager.diskCache.metadata(forKey: AssetLoader.defaultCacheKey(for: url)))
                #expect(metadata.eTag == "\"t1\"")
                // stale at once: revalidated against the tier, which revalidates against the origin
                let second = try await manager.load(AssetRequest(url: URL(string: url)!))
                #expect(second.outcome == .revalidated)
                #expect(second.route == .tier(node: "node-a"))
                #expect(harness.origin.requestCount(path: "/t.bin") == 2)
                #expect(harness.origin.requests(path: "/t.bin").last?.header("If-None-Match") == "\"t1\"")
            }
        }
    }

    @Test func aDownTierFallsBackToTheOriginOrFails() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/f.bin", .resource(TestResource(content: .bytes(Array("direct".utf8)), headers: freshForAnHour)))
            // a port nothing listens on: bound without listen for the whole test
            let closedPort = try RawConnectionPort.unused()
            defer { withExtendedLifetime(closedPort) {} }
            let down = try #require(CacheTier(url: URL(string: "http://127.0.0.1:\(closedPort.port)")!))
            try await Self.withLocalManager(tier: down) { manager in
                let answer = try await manager.load(AssetRequest(url: origin.location("/f.bin")))
                guard case .originAfterTierFailure = answer.route else {
                    Issue.record("expected a fallback, got \(String(describing: answer.route))")
                    return
                }
                #expect(String(decoding: try await manager.loader.data(for: answer), as: UTF8.self) == "direct")
            }
            var failing = down
            failing.fallback = .fail
            _ = try await Self.withLocalManager(tier: failing) { manager in
                await #expect(throws: LoaderError.self) { _ = try await manager.load(AssetRequest(url: origin.location("/f.bin"))) }
            }
            #expect(origin.requestCount(path: "/f.bin") == 1)
        }
    }

    @Test func videoRangesGoThroughTheTiersChunkStore() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10) { harness in
            harness.origin.setRoute("/v.mp4", .resource(TestResource(content: .generated(length: 1_000_000), eTag: "\"v\"", headers: freshForAnHour)))
            try await Self.withLocalManager(tier: try #require(CacheTier(url: URL(string: harness.base)!))) { manager in
                let video = VideoUtil(manager: manager)
                let data = try await video.data(for: harness.origin.location("/v.mp4"), range: 300_000..<300_100)
                #expect(Array(data) == TestContent.generatedBytes(300_000..<300_100))
                // the origin saw the tier node's chunk request only, never a whole-file request
                let ranges = harness.origin.requests(path: "/v.mp4").map { $0.header("Range") }
                #expect(ranges == ["bytes=262144-327679"])
            }
        }
    }

    @Test func prefetchWarmsTheTierAndStoresNothingHere() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.nodeName = "node-w" }) { harness in
            for index in 0..<5 {
                harness.origin.setRoute("/w\(index).bin", .resource(TestResource(content: .generated(length: 2_000), headers: freshForAnHour)))
            }
            let list = (0..<5).map { harness.origin.url("/w\($0).bin") }.joined(separator: "\n")
            let listFile = FileManager.default.temporaryDirectory.appendingPathComponent("tier-list-\(UUID().uuidString).txt")
            try Data(list.utf8).write(to: listFile)
            defer { try? FileManager.default.removeItem(at: listFile) }
            try await Self.withLocalManager(tier: try #require(CacheTier(url: URL(string: harness.base)!))) { manager in
                for expected in ["downloaded", "cached"] {
                    let prefetcher = Prefetcher(manager: manager, configuration: .init(warmsTierOnly: true))
                    let results = Mutex<[PrefetchResult]>([])
                    let summary = await prefetcher.run(try PrefetchListFeed.open(path: listFile.path)) { result in
                        results.withLock { $0.append(result) }
                    }
                    #expect(summary.total == 5)
                    #expect(summary.itemsPerNode == ["node-w": 5])
                    #expect(results.withLock { $0 }.allSatisfy { $0.outcome == expected && $0.node == "node-w" && !$0.stored })
                }
                #expect(manager.diskCache.statistics.entries == 0)
            }
            #expect((0..<5).allSatisfy { harness.origin.requestCount(path: "/w\($0).bin") == 1 })
        }
    }

    @Test func prefetchWithVariantsHasTheTierNodeMakeThem() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.nodeName = "node-v" }) { harness in
            harness.origin.setRoute("/p.jpg", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("jpeg/libjpeg-turbo/testorig.jpg")), eTag: "\"p\"", headers: freshForAnHour)))
            try await Self.withLocalManager(tier: try #require(CacheTier(url: URL(string: harness.base)!))) { manager in
                let variants = [try ImageTransform(parsing: "w=32,format=webp"), try ImageTransform(parsing: "w=40")]
                let prefetcher = Prefetcher(manager: manager, configuration: .init(warmsTierOnly: true, variants: variants))
                let summary = await prefetcher.run([PrefetchItem(url: harness.origin.location("/p.jpg"), kind: .image)]) { _ in }
                #expect(summary.failed == 0)
                #expect(summary.variants == 4)
                #expect(manager.diskCache.statistics.entries == 0)
            }
            // the node made them: asking it now is a memory hit, for each browser's answer
            for (accept, query) in [(ImageServiceTests.chromeAccept, "&w=40"), ("image/webp", "&w=40"), ("*/*", "&w=40"), ("*/*", "&w=32&format=webp")] {
                let answer = try await harness.send(harness.endpoint("image", originPath: "/p.jpg", query), headers: [("Accept", accept)])
                #expect(answer.status == 200)
                #expect(answer.header("X-Assetpipe-Cache") == "memory", "\(accept) \(query)")
            }
            #expect(try await ImageServiceTests.transformCount(harness) == 4)
            #expect(harness.origin.requestCount(path: "/p.jpg") == 1)
        }
    }

    @Test func prefetchWithAFrameVariantHasTheTierNodeRenderIt() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.nodeName = "node-f" }) { harness in
            harness.origin.setRoute("/a.json", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture(FrameVariantTests.moving)), eTag: "\"a\"", headers: freshForAnHour)))
            try await Self.withLocalManager(tier: try #require(CacheTier(url: URL(string: harness.base)!))) { manager in
                let variants = [try ImageTransform(parsing: "frame=50%,w=40,format=webp")]
                let prefetcher = Prefetcher(manager: manager, configuration: .init(warmsTierOnly: true, variants: variants))
                let summary = await prefetcher.run([PrefetchItem(url: harness.origin.location("/a.json"), kind: .lottie)]) { _ in }
                #expect(summary.failed == 0)
                #expect(summary.variants == 1)
            }
            let answer = try await harness.send(harness.endpoint("image", originPath: "/a.json", "&frame=50%25&w=40&format=webp"))
            #expect(answer.status == 200)
            #expect(answer.header("X-Assetpipe-Cache") == "memory")
            #expect(harness.origin.requestCount(path: "/a.json") == 1)
        }
    }
}

import Synchronization

/// A loopback port with nothing listening on it, kept bound (without `listen`) while the value
/// lives: a connection to it is refused, and no server another test starts on port 0 can be given
/// it meanwhile (a port bound, noted and closed at once was, under a parallel run).
final class RawConnectionPort: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    private init(port: Int, fd: Int32) {
        self.port = port
        self.fd = fd
    }

    deinit { close(fd) }

    static func unused() throws -> RawConnectionPort {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return RawConnectionPort(port: Int(UInt16(bigEndian: address.sin_port)), fd: fd)
    }
}
