@testable import AssetPipeline
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@Suite("VideoUtil: ranges through the chunk store")
struct VideoUtilTests {
    static let mp4 = "sample_with_increasing_timestamps_360p.mp4"  // mdat before moov, 3,034,079 bytes
    static let chunk = 64 << 10

    func resource(_ bytes: [UInt8], eTag: String = "\"v1\"", ranges: Bool = true) -> TestResource {
        TestResource(content: .bytes(bytes), eTag: eTag, headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "video/mp4")],
                     supportsRanges: ranges)
    }

    @Test func hundredsOfRandomRangesEqualTheOriginFile() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let served = h.serve("/v.mp4", resource(file))
        var rng = SystemRandomNumberGenerator()
        let length = Int64(file.count)
        var earlier: [VideoByteRange] = []
        for i in 0..<300 {
            let range: VideoByteRange
            if i % 10 < 3, let again = earlier.randomElement(using: &rng) {
                range = again  // 30% repeats
            } else {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: range = .suffix(Int64.random(in: 1...300_000, using: &rng))
                case 1: range = .from(length - Int64.random(in: 1...200_000, using: &rng))
                default:
                    let start = Int64.random(in: 0..<length, using: &rng)
                    let size = [Int64(1), 100, 4096, 65_536, 100_001, 400_000][Int.random(in: 0..<6, using: &rng)]
                    range = .bounded(start..<(start + size))  // may run past the end: clipped
                }
                earlier.append(range)
            }
            let result = try await h.video.read(for: h.url("/v.mp4"), byteRange: range)
            let expected = try #require(result.statistics.range)
            #expect(expected == (try range.resolvedForTest(length: length)))
            #expect(VideoHarness.sha256(result.data) == VideoHarness.sha256(file[Int(expected.lowerBound)..<Int(expected.upperBound)]),
                    "range \(range)")
            #expect(result.statistics.totalLength == length)
        }
        // every chunk reached the origin at most once: the origin sent at most the file, plus one probe byte
        #expect(served.bodyBytes <= file.count + 1)
        try await h.stop()
    }

    @Test func aRepeatedRangeCostsNoOriginBytes() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let served = h.serve("/v.mp4", resource(file))
        let first = try await h.video.read(for: h.url("/v.mp4"), byteRange: .bounded(100_000..<700_000))
        #expect(first.statistics.originRequests == 1)
        #expect(first.statistics.bytesFromCache == 0)
        let before = (served.requestCount, served.bodyBytes)
        let again = try await h.video.read(for: h.url("/v.mp4"), byteRange: .bounded(100_000..<700_000))
        #expect(again.data == first.data)
        #expect(again.statistics.originRequests == 0)
        #expect(again.statistics.bytesFromOrigin == 0)
        #expect(again.statistics.bytesFromCache == 600_000)
        #expect(served.requestCount == before.0 && served.bodyBytes == before.1)
        try await h.stop()
    }

    @Test func adjacentMissingChunksAreOneRequestAndLaterOnesCarryIfRange() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let served = h.serve("/v.mp4", resource(file))
        let cs = Int64(Self.chunk)
        _ = try await h.video.data(for: h.url("/v.mp4"), range: (3 * cs)..<(5 * cs))        // chunks 3, 4
        _ = try await h.video.data(for: h.url("/v.mp4"), range: (10 * cs + 7)..<(11 * cs))  // chunk 10
        // 0...12: chunks 0-2 are one run, 3-4 are stored, 5-9 one run, 10 stored, 11-12 one run
        let result = try await h.video.read(for: h.url("/v.mp4"), byteRange: .bounded(0..<(13 * cs)))
        #expect(result.data == Data(file[0..<Int(13 * cs)]))
        #expect(result.statistics.originRequests == 3)
        #expect(result.statistics.bytesFromCache == 3 * cs)
        let ranges = served.requests.compactMap(requestedRange)
        #expect(ranges == [(3 * cs)..<(5 * cs), (10 * cs)..<(11 * cs), 0..<(3 * cs), (5 * cs)..<(10 * cs), (11 * cs)..<(13 * cs)])
        #expect(served.requests.first?.header("If-Range") == nil)
        #expect(served.requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"v1\"" })
        try await h.stop()
    }

    @Test func concurrentOverlappingReadersShareFetches() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk, maxChunksPerRequest: 8)
        // a slow origin, so that the readers overlap in time
        let served = h.serve("/v.mp4", resource(file), delay: .milliseconds(30))
        let cs = Int64(Self.chunk)
        // learn the length first, so that every reader plans against the same record
        _ = try await h.video.data(for: h.url("/v.mp4"), range: 0..<1)
        let url = h.url("/v.mp4")
        let video = h.video
        let results = try await withThrowingTaskGroup(of: (Int, VideoReadResult).self) { group in
            for reader in 0..<8 {
                let start = Int64(reader) * 2 * cs + 1000
                group.addTask { (reader, try await video.read(for: url, byteRange: .bounded(start..<(start + 12 * cs)))) }
            }
            var all: [Int: VideoReadResult] = [:]
            for try await (reader, result) in group { all[reader] = result }
            return all
        }
        for (reader, result) in results {
            let start = reader * 2 * Self.chunk + 1000
            #expect(result.data == Data(file[start..<(start + 12 * Self.chunk)]))
        }
        // no chunk was asked for twice
        var fetched = [Int: Int]()
        for range in served.requests.compactMap(requestedRange) where range.count > 1 {
            for index in Int(range.lowerBound / cs)..<Int((range.upperBound + cs - 1) / cs) { fetched[index, default: 0] += 1 }
        }
        #expect(fetched.values.allSatisfy { $0 == 1 }, "\(fetched.filter { $0.value > 1 })")
        #expect(fetched.count == 27)  // chunks 0...26 (chunk 0 came with the first read)
        let shared = results.values.reduce(Int64(0)) { $0 + $1.statistics.bytesFromSharedFetches }
        #expect(shared > 0)
        try await h.stop()
    }

    @Test func evictionKeepsTheByteBudget() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let budget = Int64(8 * Self.chunk)
        let h = try await VideoHarness.start(chunkSize: Self.chunk, budget: budget)
        _ = h.serve("/v.mp4", resource(file))
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let start = Int64.random(in: 0..<Int64(file.count), using: &rng)
            let result = try await h.video.read(for: h.url("/v.mp4"), byteRange: .bounded(start..<(start + 200_000)))
            let served = try #require(result.statistics.range)
            #expect(result.data == Data(file[Int(served.lowerBound)..<Int(served.upperBound)]))
            #expect(h.manager.chunkStore.totalBytes <= budget)
            #expect(try h.chunkBytesOnDisk() <= budget)
        }
        #expect(h.manager.chunkStore.statistics.evictedChunks > 0)
        // a read longer than the budget still streams whole
        let long = try await h.video.data(for: h.url("/v.mp4"), range: 0..<Int64(file.count))
        #expect(VideoHarness.sha256(long) == VideoHarness.sha256(file))
        #expect(try h.chunkBytesOnDisk() <= budget)
        try await h.stop()
    }

    @Test func prefetchWarmsHeadAndTailOfAnMP4WithItsIndexAtTheEnd() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let served = h.serve("/v.mp4", resource(file))
        let warm = try await h.video.prefetch(for: h.url("/v.mp4"), head: 100_000, tail: 200_000)
        #expect(warm.totalLength == Int64(file.count))
        #expect(warm.originRequests == 2)
        let requests = served.requestCount
        let tail = try await h.video.data(for: h.url("/v.mp4"), lastBytes: 200_000)
        let head = try await h.video.data(for: h.url("/v.mp4"), range: 0..<100_000)
        #expect(served.requestCount == requests)
        #expect(head == Data(file[0..<100_000]))
        #expect(tail == Data(file[(file.count - 200_000)...]))
        // the moov box is in the tail that was warmed
        #expect(tail.range(of: Data("moov".utf8)) != nil)
        #expect(head.range(of: Data("moov".utf8)) == nil)
        try await h.stop()
    }

    @Test func aStreamHandsOutAtMostOneChunkAtATime() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        _ = h.serve("/v.mp4", resource(file))
        let stream = h.video.stream(for: h.url("/v.mp4"), range: .from(12_345))
        var total = 0
        var hasher = [UInt8]()
        hasher.reserveCapacity(file.count)
        for try await piece in stream {
            #expect(piece.count <= Self.chunk)
            total += piece.count
            hasher.append(contentsOf: piece)
        }
        #expect(total == file.count - 12_345)
        #expect(VideoHarness.sha256(hasher) == VideoHarness.sha256(file[12_345...]))
        #expect(stream.statistics.bytes == Int64(total))
        // a read to the end asks for its chunk and two more at a time (readAheadChunks)
        let chunks = (file.count - 1) / Self.chunk - 12_345 / Self.chunk + 1
        #expect(stream.statistics.originRequests == (chunks + 2) / 3)
        try await h.stop()
    }

    @Test func aStreamFetchesAWindowAndKeepsItWhenCut() async throws {
        let file = try VideoHarness.fixture(Self.mp4)
        let h = try await VideoHarness.start(chunkSize: Self.chunk)  // readAheadChunks: 2
        let served = h.serve("/p.mp4", resource(file))
        let url = h.url("/p.mp4")
        let start = 5 * Self.chunk, window = 3 * Self.chunk
        let slice = Array(file[start..<(start + window)])
        // the window's body comes in 48 KiB pieces, slowly: a reader that leaves after one chunk
        // leaves the rest of the window on its way
        served.override { request in
            guard request.header("Range") == "bytes=\(start)-\(start + window - 1)" else { return nil }
            let pieces = stride(from: 0, to: slice.count, by: 48 << 10).map { Array(slice[$0..<min($0 + (48 << 10), slice.count)]) }
            return TestResponse(
                status: 206,
                headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=3600"),
                          ("Content-Range", "bytes \(start)-\(start + window - 1)/\(file.count)")],
                body: .slow(chunks: pieces, delay: .milliseconds(40)))
        }
        do {
            // a player: `bytes=N-`, reads a chunk, then leaves
            let stream = h.video.stream(for: url, range: .from(Int64(start)))
            for try await piece in stream {
                #expect(piece.count == Self.chunk)
                break
            }
        }
        // one request, for the chunk and two more (readAheadChunks)
        #expect(served.requests.map { $0.header("Range") } == ["bytes=\(start)-\(start + window - 1)"])
        // the rest of the window is read and stored in the background; nothing past it
        let key = try #require(try await h.video.cachedRecord(for: url)).key
        // the fetch stores a chunk before it lets go of its claim: awaiting the claim awaits the store
        if let signal = h.video.inFlight.signal(key: key, index: 7) { _ = try? await signal.wait() }
        let record = try #require(try h.manager.chunkStore.record(forKey: key))
        #expect((5...7).allSatisfy { record.contains(chunk: $0) })
        #expect(!record.contains(chunk: 8))
        served.override(nil)
        // the same jump again costs the origin nothing
        let again = try await h.video.read(for: url, byteRange: .bounded(Int64(start)..<Int64(start + window)))
        #expect(again.data == Data(slice))
        #expect(served.requestCount == 1)
        // a streamed range with an end far away (Chromium's `bytes=N-M`) is fetched a window at a time too
        do {
            let stream = h.video.stream(for: url, range: .bounded(Int64(20 * Self.chunk)..<Int64(40 * Self.chunk)))
            for try await _ in stream { break }
        }
        #expect(served.requests.last?.header("Range") == "bytes=\(20 * Self.chunk)-\(23 * Self.chunk - 1)")
        // a read collected whole goes out as one request
        let named = try await h.video.read(for: url, byteRange: .bounded(Int64(30 * Self.chunk)..<Int64(40 * Self.chunk)))
        #expect(named.data == Data(file[(30 * Self.chunk)..<(40 * Self.chunk)]))
        #expect(served.requests.last?.header("Range") == "bytes=\(30 * Self.chunk)-\(40 * Self.chunk - 1)")
        try await h.stop()
    }

    @Test func chunksSurviveARestartOfTheManager() async throws {
        let file = try VideoHarness.fixture("sample.mp4")
        let h = try await VideoHarness.start(chunkSize: 16 << 10)
        let served = h.serve("/s.mp4", resource(file))
        _ = try await h.video.data(for: h.url("/s.mp4"), range: 0..<Int64(file.count))
        try await h.manager.shutdown()
        var configuration = h.manager.configuration
        configuration.chunks.chunkSize = 16 << 10
        let reopened = try await AssetsManager.open(configuration: configuration)
        let video = VideoUtil(manager: reopened)
        let again = try await video.read(for: h.url("/s.mp4"), byteRange: .bounded(5_000..<90_000))
        #expect(again.data == Data(file[5_000..<90_000]))
        #expect(again.statistics.originRequests == 0)
        #expect(served.requestCount == 1)
        try await reopened.shutdown()
        await h.origin.stop()
    }
}

extension VideoByteRange {
    /// The range a resource of `length` bytes serves, computed independently of the library.
    func resolvedForTest(length: Int64) throws -> Range<Int64> {
        switch self {
        case .bounded(let r): return r.lowerBound..<min(r.upperBound, length)
        case .from(let s): return s..<length
        case .suffix(let n): return max(0, length - n)..<length
        }
    }
}
