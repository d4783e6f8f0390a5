import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Synchronization
import Testing
@testable import AssetPipeline

/// Where a video's bytes live: whole in the disk cache (prefetched whole, the default), or as
/// chunks in the chunk store (a `videoPrefix`, or range reads), never both; reruns find them there.
@Suite("Video bytes: one home, free reruns")
struct VideoHomeTests {
    static let chunk = 64 << 10

    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        // an ISO-BMFF start (`ftyp` at offset 4), so that validation accepts it
        var bytes = (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ Int(seed) ^ ($0 >> 11)) }
        bytes.replaceSubrange(0..<8, with: [0, 0, 0, 0x18] + Array("ftyp".utf8))
        return bytes
    }

    static func resource(_ bytes: [UInt8], eTag: String, maxAge: Int = 3600) -> TestResource {
        TestResource(content: .bytes(bytes), eTag: eTag, headers: [("Cache-Control", "max-age=\(maxAge)"), ("Content-Type", "video/mp4")])
    }

    /// Runs one prefetch of `lines` and returns its results by the URL's path.
    static func prefetch(_ h: VideoHarness, _ lines: [String], prefix: Int64?, validate: Bool) async throws -> [String: PrefetchResult] {
        let list = h.directory.appendingPathComponent("list-\(UUID().uuidString).txt")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: list)
        defer { try? FileManager.default.removeItem(at: list) }
        let prefetcher = Prefetcher(manager: h.manager, configuration: .init(validate: validate, videoPrefix: prefix))
        let results = Mutex<[String: PrefetchResult]>([:])
        let summary = await prefetcher.run(try PrefetchListFeed.open(path: list.path)) { result in
            let path = URL(string: result.url)?.path ?? result.url
            results.withLock { $0[path] = result }
        }
        #expect(summary.failed == 0)
        return results.withLock { $0 }
    }

    static func key(_ h: VideoHarness, _ path: String) -> String { AssetLoader.defaultCacheKey(for: h.url(path).absoluteString) }

    @Test(arguments: [nil, Int64(3 * chunk)])
    func aNamedAndAGuessedVideoTakeTheSamePath(prefix: Int64?) async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let a = Self.bytes(10 * Self.chunk + 17, seed: 1), b = Self.bytes(9 * Self.chunk, seed: 2)
        _ = h.serve("/v/a.mp4", Self.resource(a, eTag: "\"a\""))
        _ = h.serve("/v/b", Self.resource(b, eTag: "\"b\""))
        let results = try await Self.prefetch(h, [h.url("/v/a.mp4").absoluteString, h.url("/v/b").absoluteString + "\tvideo"], prefix: prefix, validate: true)
        for (path, length) in [("/v/a.mp4", a.count), ("/v/b", b.count)] {
            let result = try #require(results[path])
            #expect(result.outcome == "downloaded")
            #expect(result.kind == .video)
            #expect(result.stored)
            let record = try h.manager.chunkStore.record(forKey: Self.key(h, path))
            if let prefix {
                #expect(result.bytes == prefix)
                #expect(result.status == 206)
                #expect(!h.manager.diskCache.contains(key: Self.key(h, path)), "\(path) is in the disk cache too")
                #expect(Set(record?.chunks.keys ?? [:].keys) == Set(0..<3))
            } else {
                #expect(result.bytes == Int64(length))
                #expect(result.status == 200)
                #expect(h.manager.diskCache.contains(key: Self.key(h, path)))
                #expect(record == nil, "\(path) is in the chunk store too")
            }
        }
        try await h.stop()
    }

    /// Every combination of the first and the second run's `validate`, for each way a video goes.
    @Test(arguments: [nil, Int64(2 * chunk)], [(false, false), (true, false), (false, true), (true, true)])
    func aRerunMakesNoRequestAndReportsCached(prefix: Int64?, validate: (first: Bool, second: Bool)) async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        _ = h.serve("/v/a.mp4", Self.resource(Self.bytes(5 * Self.chunk, seed: 3), eTag: "\"a\""))
        _ = h.serve("/v/b", Self.resource(Self.bytes(4 * Self.chunk + 3, seed: 4), eTag: "\"b\""))
        let lines = [h.url("/v/a.mp4").absoluteString, h.url("/v/b").absoluteString + "\tvideo"]
        let first = try await Self.prefetch(h, lines, prefix: prefix, validate: validate.first)
        #expect(first.values.allSatisfy { $0.outcome == "downloaded" })
        let before = h.origin.totalRequestCount
        let second = try await Self.prefetch(h, lines, prefix: prefix, validate: validate.second)
        #expect(h.origin.totalRequestCount == before, "the rerun asked the origin again")
        #expect(second.count == 2)
        #expect(second.values.allSatisfy { $0.outcome == "cached" && $0.bytesDownloaded == 0 && $0.stored && $0.status == 200 })
        try await h.stop()
    }

    @Test func rangeReadsOfAVideoPrefetchedWholeTakeNothingFromTheOrigin() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let bytes = Self.bytes(12 * Self.chunk + 5, seed: 5)
        let served = h.serve("/v/whole.mp4", Self.resource(bytes, eTag: "\"w\""))
        _ = try await Self.prefetch(h, [h.url("/v/whole.mp4").absoluteString], prefix: nil, validate: false)
        #expect(served.requestCount == 1)
        let url = h.url("/v/whole.mp4")
        let middle = try await h.video.read(for: url, byteRange: .bounded(Int64(Self.chunk + 9)..<Int64(7 * Self.chunk + 1)))
        #expect(middle.data == Data(bytes[(Self.chunk + 9)..<(7 * Self.chunk + 1)]))
        #expect(middle.statistics.originRequests == 0)
        #expect(middle.statistics.bytesFromOrigin == 0)
        #expect(middle.statistics.bytesFromDiskCache == middle.statistics.bytes)
        #expect(middle.statistics.totalLength == Int64(bytes.count))
        let tail = try await h.video.data(for: url, lastBytes: 100)
        #expect(tail == Data(bytes.suffix(100)))
        // a prefix prefetch over it reads the disk cache's copy and stores nothing
        let prefixRun = try await Self.prefetch(h, [h.url("/v/whole.mp4").absoluteString], prefix: Int64(3 * Self.chunk), validate: true)
        #expect(prefixRun["/v/whole.mp4"]?.outcome == "cached")
        #expect(served.requestCount == 1)
        #expect(try await h.video.cachedRecord(for: url) == nil)
        #expect(try h.chunkBytesOnDisk() == 0)
        try await h.stop()
    }

    @Test func aVideoDownloadedWholeReplacesItsChunks() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let bytes = Self.bytes(6 * Self.chunk, seed: 6)
        _ = h.serve("/v/c.mp4", Self.resource(bytes, eTag: "\"c\""))
        let url = h.url("/v/c.mp4")
        _ = try await Self.prefetch(h, [url.absoluteString], prefix: Int64(2 * Self.chunk), validate: false)
        #expect(try await h.video.cachedRecord(for: url)?.chunks.count == 2)
        let whole = try await Self.prefetch(h, [url.absoluteString], prefix: nil, validate: true)
        #expect(whole["/v/c.mp4"]?.outcome == "downloaded")
        #expect(try await h.video.cachedRecord(for: url) == nil)
        #expect(try h.chunkBytesOnDisk() == 0)
        #expect(h.manager.diskCache.contains(key: Self.key(h, "/v/c.mp4")))

        // the same through the manager: a video load replaces the chunks a range read stored
        _ = h.serve("/v/d.mp4", Self.resource(bytes, eTag: "\"d\""))
        let d = h.url("/v/d.mp4")
        _ = try await h.video.data(for: d, range: 0..<10)
        #expect(try await h.video.cachedRecord(for: d) != nil)
        _ = try await h.manager.load(AssetRequest(url: d, kind: .video))
        #expect(try await h.video.cachedRecord(for: d) == nil)
        try await h.stop()
    }

    @Test func aStaleWholeCopyIsConfirmedOnceAndAChangedOneMovesToTheChunkStore() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let old = Self.bytes(5 * Self.chunk, seed: 7), new = Self.bytes(5 * Self.chunk, seed: 8)
        let served = h.serve("/v/s.mp4", Self.resource(old, eTag: "\"s1\"", maxAge: 0))
        let url = h.url("/v/s.mp4")
        _ = try await h.manager.load(AssetRequest(url: url, kind: .video))
        let confirmed = try await h.video.read(for: url, byteRange: .bounded(100..<200))
        #expect(confirmed.data == Data(old[100..<200]))
        #expect(confirmed.statistics.originRequests == 1)  // If-None-Match "s1" for one byte: 304
        #expect(confirmed.statistics.bytesFromDiskCache == 100)
        #expect(served.requests.last?.header("If-None-Match") == "\"s1\"")
        #expect(served.requests.last?.header("Range") == "bytes=0-0")

        served.replace(Self.resource(new, eTag: "\"s2\"", maxAge: 3600))
        let changed = try await h.video.read(for: url, byteRange: .bounded(100..<200))
        #expect(changed.data == Data(new[100..<200]))
        #expect(changed.statistics.bytesFromDiskCache == 0)
        #expect(!h.manager.diskCache.contains(key: Self.key(h, "/v/s.mp4")))
        #expect(try await h.video.cachedRecord(for: url)?.info.eTag == "\"s2\"")
        try await h.stop()
    }
}
