import AssetPipeline
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@Suite("VideoUtil: origins that change or misbehave")
struct VideoUtilOriginTests {
    static let chunk = 64 << 10
    static let cs = Int64(chunk)

    func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ Int(seed) ^ ($0 >> 9)) }
    }

    func resource(_ bytes: [UInt8], eTag: String?, maxAge: Int = 3600, ranges: Bool = true) -> TestResource {
        TestResource(content: .bytes(bytes), eTag: eTag, headers: [("Cache-Control", "max-age=\(maxAge)")], supportsRanges: ranges)
    }

    /// Every stored chunk of `url` must equal `bytes` at its offset.
    func expectStoredChunks(_ h: VideoHarness, _ url: URL, equal bytes: [UInt8]) async throws {
        let record = try #require(try await h.video.cachedRecord(for: url))
        let store = h.manager.chunkStore
        for index in record.chunks.keys {
            let data = try #require(try store.readChunk(forKey: record.key, generation: record.generation, index: index))
            let start = index * record.chunkSize
            #expect(data == Data(bytes[start..<(start + data.count)]), "chunk \(index)")
        }
    }

    @Test func aNewETagDropsTheOldChunksAndNeverMixesVersions() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let old = pattern(20 * Self.chunk, seed: 1), new = pattern(20 * Self.chunk, seed: 2)
        let served = h.serve("/c.bin", resource(old, eTag: "\"v1\""))
        let url = h.url("/c.bin")
        _ = try await h.video.data(for: url, range: 0..<(3 * Self.cs))
        served.replace(resource(new, eTag: "\"v2\""))
        // chunks 1-2 are stored (old), 3-5 are not: the fetch of 3-5 carries If-Range "v1" and gets a 200
        let result = try await h.video.read(for: url, byteRange: .bounded((Self.cs + 5)..<(6 * Self.cs)))
        #expect(result.data == Data(new[(Self.chunk + 5)..<(6 * Self.chunk)]))
        #expect(served.requests[1].header("If-Range") == "\"v1\"")
        let record = try #require(try await h.video.cachedRecord(for: url))
        #expect(record.info.eTag == "\"v2\"")
        try await expectStoredChunks(h, url, equal: new)

        // a streamed read that already handed out old bytes stops with resourceChanged
        _ = try await h.video.data(for: url, range: 0..<(6 * Self.cs))
        served.replace(resource(old, eTag: "\"v3\""))
        let stream = h.video.stream(for: url, range: .bounded(0..<(12 * Self.cs)))
        var received = Data()
        await #expect(throws: VideoError.self) {
            do {
                for try await piece in stream { received.append(piece) }
            } catch let error as VideoError {
                #expect(error.code == .resourceChanged)
                throw error
            }
        }
        #expect(received == Data(new[0..<(6 * Self.chunk)]))  // only bytes of one version
        try await expectStoredChunks(h, url, equal: old)       // and the store holds only v3's
        try await h.stop()
    }

    @Test func anOriginWithoutRangesIsReadFromTheStartOnlyAsFarAsNeeded() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let bytes = pattern(30 * Self.chunk + 123, seed: 3)
        let served = h.serve("/n.bin", resource(bytes, eTag: "\"n1\"", ranges: false))
        let url = h.url("/n.bin")
        let middle = try await h.video.read(for: url, byteRange: .bounded((5 * Self.cs + 10)..<(7 * Self.cs)))
        #expect(middle.data == Data(bytes[(5 * Self.chunk + 10)..<(7 * Self.chunk)]))
        #expect(middle.statistics.originRequests == 1)
        #expect(middle.statistics.bytesFromOrigin < 12 * Self.cs)  // stopped near chunk 7, not the whole 30
        var record = try #require(try await h.video.cachedRecord(for: url))
        #expect(Set(record.chunks.keys) == Set(0..<7))  // stored as they passed
        #expect(record.info.rangesSupported == false)
        #expect(record.info.totalLength == Int64(bytes.count))

        let head = try await h.video.read(for: url, byteRange: .bounded(0..<(3 * Self.cs)))
        #expect(head.statistics.originRequests == 0)

        let tail = try await h.video.read(for: url, byteRange: .suffix(100))
        #expect(tail.data == Data(bytes[(bytes.count - 100)...]))
        #expect(served.requests.allSatisfy { $0.header("Range") == nil || $0 == served.requests[0] })
        record = try #require(try await h.video.cachedRecord(for: url))
        #expect(record.chunks.count == 31)
        #expect(try h.chunkBytesOnDisk() == Int64(bytes.count))  // no chunk stored twice
        try await expectStoredChunks(h, url, equal: bytes)
        try await h.stop()
    }

    @Test func aBodyCutShortKeepsOnlyWholeChunks() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let bytes = pattern(10 * Self.chunk, seed: 4)
        let served = h.serve("/t.bin", resource(bytes, eTag: "\"t1\""))
        served.override { request in
            guard let range = requestedRange(request) else { return nil }
            let end = min(Int(range.upperBound), bytes.count)
            let cut = Int(range.lowerBound) + 3 * Self.chunk + Self.chunk / 2  // 3.5 chunks, then the connection closes
            return TestResponse(status: 206, headers: [
                ("ETag", "\"t1\""), ("Cache-Control", "max-age=3600"),
                ("Content-Range", "bytes \(range.lowerBound)-\(end - 1)/\(bytes.count)"),
            ], body: .truncated(Array(bytes[Int(range.lowerBound)..<cut]), declaredLength: end - Int(range.lowerBound)))
        }
        let url = h.url("/t.bin")
        await #expect(throws: VideoError.self) {
            do {
                _ = try await h.video.data(for: url, range: 0..<(6 * Self.cs))
            } catch let error as VideoError {
                #expect(error.code == .truncated, "\(error)")
                throw error
            }
        }
        // the close may lose bytes still in flight (a reset discards them), so fewer chunks may have
        // arrived; but never chunk 3, which was cut, and every kept chunk is whole and right
        let record = try #require(try await h.video.cachedRecord(for: url))
        #expect(Set(record.chunks.keys).isSubset(of: [0, 1, 2]))
        try await expectStoredChunks(h, url, equal: bytes)
        #expect(try h.chunkBytesOnDisk() == Int64(record.chunks.count) * Self.cs)

        served.override(nil)
        let again = try await h.video.read(for: url, byteRange: .bounded(0..<(6 * Self.cs)))
        #expect(again.data == Data(bytes[0..<(6 * Self.chunk)]))
        #expect(again.statistics.bytesFromCache == Int64(record.chunks.count) * Self.cs)
        try await h.stop()
    }

    @Test func rangesPastTheEndAreClippedOrRefusedWithTheLength() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let bytes = pattern(3 * Self.chunk + 10, seed: 5)
        let served = h.serve("/e.bin", resource(bytes, eTag: "\"e1\""))
        let url = h.url("/e.bin")
        // the first request learns the length from a 416
        await #expect(throws: VideoError.self) {
            do {
                _ = try await h.video.data(for: url, range: (10 * Self.cs)..<(11 * Self.cs))
            } catch let error as VideoError {
                #expect(error.code == .rangeNotSatisfiable)
                #expect(error.totalLength == Int64(bytes.count))
                throw error
            }
        }
        #expect(served.requests.last.map { requestedRange($0) } == (10 * Self.cs)..<(11 * Self.cs))
        // then a range wholly past the end needs no request, and one partly past is clipped
        let count = served.requestCount
        await #expect(throws: VideoError.self) { _ = try await h.video.data(for: url, range: Int64(bytes.count)..<Int64(bytes.count + 5)) }
        #expect(served.requestCount == count)
        let clipped = try await h.video.read(for: url, byteRange: .bounded((3 * Self.cs)..<(5 * Self.cs)))
        #expect(clipped.data == Data(bytes[(3 * Self.chunk)...]))
        #expect(clipped.statistics.range == (3 * Self.cs)..<Int64(bytes.count))
        await #expect(throws: VideoError.self) { _ = try await h.video.data(for: url, range: -1..<5) }
        #expect(try await h.video.data(for: url, range: 7..<7).isEmpty)
        try await h.stop()
    }

    @Test func emptySmallAndUnknownLengthResources() async throws {
        let h = try await VideoHarness.start(chunkSize: 1 << 20)
        // Content-Length: 0 (the origin answers 416 bytes */0 to any range)
        _ = h.serve("/zero", resource([], eTag: "\"z\""))
        await #expect(throws: VideoError.self) {
            do {
                _ = try await h.video.data(for: h.url("/zero"), range: 0..<10)
            } catch let error as VideoError {
                #expect(error.code == .rangeNotSatisfiable && error.totalLength == 0)
                throw error
            }
        }
        #expect(try await h.video.cachedRecord(for: h.url("/zero"))?.chunks.isEmpty != false)
        // a 200 with Content-Length: 0 from an origin without ranges
        h.origin.setRoute("/zero200", .response(TestResponse(status: 200, headers: [("ETag", "\"z2\"")], body: .empty)))
        await #expect(throws: VideoError.self) { _ = try await h.video.data(for: h.url("/zero200"), range: 0..<10) }

        // smaller than one chunk: a suffix read probes the length, then reads the one chunk
        let webm = try VideoHarness.fixture("bbb_480p_vp9_opus_1second.webm")
        _ = h.serve("/small.webm", resource(webm, eTag: "\"w\""))
        let last = try await h.video.read(for: h.url("/small.webm"), byteRange: .suffix(1000))
        #expect(last.data == Data(webm[(webm.count - 1000)...]))
        let all = try await h.video.read(for: h.url("/small.webm"), byteRange: .bounded(0..<1_000_000))
        #expect(VideoHarness.sha256(all.data) == VideoHarness.sha256(webm))
        #expect(all.statistics.originRequests == 0)

        // unknown length: chunked transfer coding, no Range support
        let body = pattern(2_500_000, seed: 6)
        let parts = stride(from: 0, to: body.count, by: 300_000).map { Array(body[$0..<min($0 + 300_000, body.count)]) }
        h.origin.setRoute("/chunked", .response(TestResponse(status: 200, headers: [("ETag", "\"k\""), ("Cache-Control", "max-age=60")],
                                                             body: .chunkedEncoding(parts))))
        let whole = try await h.video.read(for: h.url("/chunked"), byteRange: .from(1_000_000))
        #expect(whole.data == Data(body[1_000_000...]))
        #expect(whole.statistics.totalLength == Int64(body.count))
        let record = try #require(try await h.video.cachedRecord(for: h.url("/chunked")))
        #expect(record.info.totalLength == Int64(body.count))
        #expect(record.chunks.count == 3)
        #expect(try await h.video.data(for: h.url("/chunked"), lastBytes: 10) == Data(body[(body.count - 10)...]))
        try await h.stop()
    }

    @Test func staleRecordsAreRevalidatedAndAChangedValidatorDropsThem() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        let old = pattern(4 * Self.chunk, seed: 7), new = pattern(4 * Self.chunk, seed: 8)
        let served = h.serve("/r.bin", resource(old, eTag: "\"r1\"", maxAge: 0))
        let url = h.url("/r.bin")
        _ = try await h.video.data(for: url, range: 0..<(2 * Self.cs))
        let revalidated = try await h.video.read(for: url, byteRange: .bounded(10..<(2 * Self.cs)))
        #expect(revalidated.data == Data(old[10..<(2 * Self.chunk)]))
        #expect(revalidated.statistics.originRequests == 1)
        #expect(served.requests.last?.header("If-None-Match") == "\"r1\"")
        #expect(revalidated.statistics.bytesFromCache == 2 * Self.cs - 10)

        served.replace(resource(new, eTag: "\"r2\"", maxAge: 0))
        let changed = try await h.video.read(for: url, byteRange: .bounded(10..<(2 * Self.cs)))
        #expect(changed.data == Data(new[10..<(2 * Self.chunk)]))
        #expect(try await h.video.cachedRecord(for: url)?.info.eTag == "\"r2\"")
        try await expectStoredChunks(h, url, equal: new)
        try await h.stop()
    }

    @Test func errorStatusesAndNoStoreResponses() async throws {
        let h = try await VideoHarness.start(chunkSize: Self.chunk)
        h.origin.setRoute("/missing", .response(TestResponse(status: 404)))
        await #expect(throws: VideoError.self) {
            do {
                _ = try await h.video.data(for: h.url("/missing"), range: 0..<10)
            } catch let error as VideoError {
                #expect(error.code == .http && error.status == 404)
                throw error
            }
        }
        let bytes = pattern(3 * Self.chunk, seed: 9)
        let served = h.serve("/private", TestResource(content: .bytes(bytes), eTag: "\"p\"", headers: [("Cache-Control", "no-store")]))
        let first = try await h.video.data(for: h.url("/private"), range: 100..<(2 * Self.cs))
        #expect(first == Data(bytes[100..<(2 * Self.chunk)]))
        #expect(try await h.video.cachedRecord(for: h.url("/private")) == nil)
        _ = try await h.video.data(for: h.url("/private"), range: 100..<(2 * Self.cs))
        #expect(served.requestCount == 2)
        try await h.stop()
    }
}

@Suite("VideoUtil: error messages")
struct VideoUtilErrorMessageTests {
    @Test func aRefusedConnectionIsNamedOnce() async throws {
        let h = try await VideoHarness.start()
        let url = h.url("/gone.mp4")
        await h.origin.stop()
        let error = try await #require(throws: VideoError.self) {
            _ = try await h.video.data(for: url, range: 0..<10)
        }
        #expect(error.code == .network)
        #expect(error.description == "network: \(url): the connection failed: Connection refused (errno 111)")
        try await h.stop()
    }
}
