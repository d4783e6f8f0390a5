import Foundation
import Testing
@testable import AssetStorage

@Suite("DiskCache: storing and reading")
struct DiskCacheTests {
    func bytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test func metadataComesWithTheFirstBytesOfTheData() throws {
        let dir = try TemporaryDirectory("disk-prefix")
        let payload = bytes(3000)
        do {
            let cache = try DiskCache(directory: dir.url)
            _ = try cache.store(payload, forKey: "k", info: DiskCache.EntryInfo(kind: .raw))
            let (meta, prefix) = try #require(try cache.metadata(forKey: "k", prefixCount: 16))
            #expect(meta.size == 3000 && prefix == Array(payload.prefix(16)))
            cache.close()
        }
        // A cache opened anew, whose index learns the entry from its file: the same bytes.
        let cache = try DiskCache(directory: dir.url)
        #expect(try cache.metadata(forKey: "k", prefixCount: 512)?.prefix == Array(payload.prefix(512)))
        #expect(try cache.metadata(forKey: "k", prefixCount: 10_000)?.prefix == payload)
        #expect(try cache.metadata(forKey: "k", prefixCount: 0)?.prefix == [])
        #expect(try cache.metadata(forKey: "absent", prefixCount: 16) == nil)
        // Not an access: nothing counted.
        #expect(try cache.metadata(forKey: "k")?.accessCount == 0)
    }

    @Test func storesAndReadsBackBytesAndMetadata() throws {
        let dir = try TemporaryDirectory("disk")
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let cache = try DiskCache(configuration: .init(directory: dir.url, clock: clock))
        let payload = bytes(50_000)
        let info = DiskCache.EntryInfo(
            kind: .image, originalUrlString: "https://example.org/a.png", contentType: "image/png",
            eTag: "\"abc\"", lastModified: "Tue, 15 Nov 1994 12:45:26 GMT")
        let meta = try cache.store(payload, forKey: "https://example.org/a.png", info: info)
        #expect(meta.size == 50_000)
        #expect(meta.checksum.hasPrefix("xxh128:") && meta.checksum.count == 39)
        #expect(try cache.bytes(forKey: "https://example.org/a.png") == payload)
        #expect(try cache.data(forKey: "https://example.org/other") == nil)

        let hash = CacheKeyHash.fileName(for: "https://example.org/a.png")
        #expect(hash.count == 64 && hash == hash.lowercased())
        let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
        // One file per entry; the `.meta.json` beside it appears once something changes (a flush).
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard.path) == ["\(hash).entry"])

        let stored = try #require(try cache.metadata(forKey: "https://example.org/a.png"))
        #expect(stored.originalUrlString == "https://example.org/a.png")
        #expect(stored.eTag == "\"abc\"")
        #expect(stored.lastModified == "Tue, 15 Nov 1994 12:45:26 GMT")
        #expect(stored.contentType == "image/png")
        #expect(stored.kind == .image)
        #expect(stored.createdDate == clock.now)
        #expect(stored.accessCount == 1)

        let stats = cache.statistics
        #expect(stats.entries == 1 && stats.bytes == 50_000)
        #expect(stats.perKind[.image] == DiskCache.KindStatistics(entries: 1, bytes: 50_000))
        #expect(stats.hits == 1 && stats.misses == 1)
    }

    @Test func sha256FileNamesMatchAKnownDigest() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        #expect(CacheKeyHash.fileName(for: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func reopeningFindsItsEntries() throws {
        let dir = try TemporaryDirectory("reopen")
        do {
            let cache = try DiskCache(directory: dir.url)
            for i in 0..<300 { try cache.store(bytes(100 + i, seed: UInt8(i % 200)), forKey: "key-\(i)", info: .init(kind: i % 2 == 0 ? .lottie : .raw)) }
            cache.close()
        }
        let reopened = try DiskCache(directory: dir.url)
        #expect(reopened.openReport.entries == 300)
        #expect(reopened.statistics.entries == 300)
        #expect(reopened.statistics.perKind[.lottie]?.entries == 150)
        #expect(reopened.totalBytes == (0..<300).reduce(0) { $0 + Int64(100 + $1) })
        for i in stride(from: 0, to: 300, by: 37) {
            #expect(try reopened.bytes(forKey: "key-\(i)") == bytes(100 + i, seed: UInt8(i % 200)))
        }
    }

    @Test func replacingAnEntryKeepsOneCopy() throws {
        let dir = try TemporaryDirectory("replace")
        let cache = try DiskCache(directory: dir.url)
        try cache.store(bytes(1000), forKey: "k")
        try cache.store(bytes(10, seed: 9), forKey: "k")
        #expect(try cache.bytes(forKey: "k") == bytes(10, seed: 9))
        #expect(cache.statistics.entries == 1 && cache.totalBytes == 10)
    }

    @Test func removalByKeyByDateAndAll() throws {
        let dir = try TemporaryDirectory("remove")
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let cache = try DiskCache(configuration: .init(directory: dir.url, clock: clock))
        for i in 0..<10 {
            try cache.store(bytes(10), forKey: "k\(i)")
            clock.advance(by: 60)
        }
        #expect(try cache.remove(key: "k0"))
        #expect(try !cache.remove(key: "k0"))
        #expect(try cache.data(forKey: "k0") == nil)
        // k5...k9 were stored at or after start + 300 s.
        let since = try cache.removeAll(since: Date(timeIntervalSince1970: 1_800_000_300))
        #expect(since.entries == 5)
        #expect(Set(cache.keys) == Set((1..<5).map { "k\($0)" }))
        let all = try cache.removeAll()
        #expect(all.entries == 4)
        #expect(cache.statistics.entries == 0 && cache.totalBytes == 0)
        let reopened = try DiskCache(directory: dir.url)
        #expect(reopened.statistics.entries == 0)
    }

    @Test func streamedWritesCommitOnlyWhole() throws {
        let dir = try TemporaryDirectory("writer")
        let cache = try DiskCache(directory: dir.url)
        let writer = try cache.makeWriter(forKey: "big", maxBytes: 1000)
        try writer.append(bytes(600))
        #expect(throws: StorageError.self) { try writer.append(bytes(600)) }
        #expect(try cache.data(forKey: "big") == nil)

        let short = try cache.makeWriter(forKey: "short")
        try short.append(bytes(100))
        #expect(throws: StorageError.self) { try short.commit(.init(), expectedSize: 200) }
        #expect(try cache.data(forKey: "short") == nil)

        let dropped = try cache.makeWriter(forKey: "dropped")
        try dropped.append(bytes(100))
        dropped.discard()

        let good = try cache.makeWriter(forKey: "good")
        try good.append(bytes(100))
        try good.append(bytes(50, seed: 3))
        try good.commit(.init(kind: .video), expectedSize: 150)
        #expect(try cache.bytes(forKey: "good") == bytes(100) + bytes(50, seed: 3))
        // Nothing is left behind in the temporary folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path).isEmpty)
    }

    @Test func typedValuesRoundTripAsJSON() throws {
        struct Response: Codable, Equatable { var id: Int; var tags: [String] }
        let dir = try TemporaryDirectory("codable")
        let cache = try DiskCache(directory: dir.url)
        try cache.storeValue(Response(id: 7, tags: ["a", "b"]), forKey: "api/7")
        #expect(try cache.value(Response.self, forKey: "api/7") == Response(id: 7, tags: ["a", "b"]))
        #expect(try cache.value(Response.self, forKey: "api/8") == nil)
        #expect(throws: StorageError.self) { try cache.value([Int].self, forKey: "api/7") }
        #expect(try cache.metadata(forKey: "api/7")?.contentType == "application/json")
    }

    @Test func updatingMetadataKeepsTheData() throws {
        let dir = try TemporaryDirectory("update")
        let cache = try DiskCache(directory: dir.url)
        try cache.store(bytes(64), forKey: "k", info: .init(eTag: "\"1\""))
        _ = try cache.bytes(forKey: "k")
        let updated = try cache.updateMetadata(forKey: "k") { meta in
            meta.eTag = "\"2\""
            meta.size = 1  // ignored: the data did not change
        }
        #expect(updated?.eTag == "\"2\"" && updated?.size == 64)
        #expect(try cache.bytes(forKey: "k") == bytes(64))
        #expect(try cache.metadata(forKey: "k")?.accessCount == 2)
        #expect(try cache.updateMetadata(forKey: "missing") { _ in } == nil)
    }

    @Test func metadataJSONRoundTripsEveryField() throws {
        let http = CacheMetadata.HTTPInfo(
            status: 200, headers: [("Cache-Control", "max-age=60"), ("X-Quote", "a \"b\"\n\\c é 🎞")],
            requestTime: Date(timeIntervalSince1970: 1_800_000_000.25),
            responseTime: Date(timeIntervalSince1970: 1_800_000_000.5),
            varyRequestHeaders: [("accept", "image/*"), ("accept-language", nil)])
        let meta = CacheMetadata(
            key: "k\u{1}", originalUrlString: nil, createdDate: Date(timeIntervalSince1970: 1_700_000_000.125),
            eTag: "W/\"x\"", lastModified: nil, accessCount: 12, lastAccessTime: Date(timeIntervalSince1970: 1_700_000_001),
            size: 123_456_789_012, contentType: "video/mp4", kind: .video, checksum: String(repeating: "a", count: 64),
            expirationDate: Date(timeIntervalSince1970: 1_900_000_000), http: http)
        #expect(CacheMetadata(jsonBytes: meta.jsonBytes) == meta)
        // The file is JSON any reader can parse, with ISO 8601 dates.
        let object = try JSONSerialization.jsonObject(with: Data(meta.jsonBytes)) as? [String: Any]
        #expect(object?["createdDate"] as? String == "2023-11-14T22:13:20.125Z")
        #expect(object?["accessCount"] as? Int == 12)
        // Any cut of the file is rejected, never misread.
        let full = meta.jsonBytes
        for cut in stride(from: 0, to: full.count, by: 7) {
            #expect(CacheMetadata(jsonBytes: Array(full[0..<cut])) == nil)
        }
    }

    @Test func aDataFileReadsTheDataAloneAndOutlivesAReplace() throws {
        let dir = try TemporaryDirectory("datafile")
        let cache = try DiskCache(directory: dir.url)
        let first = bytes(10_000)
        let meta = try cache.store(first, forKey: "k")
        let file = try #require(try cache.openData(forKey: "k"))
        #expect(file.size == 10_000 && file.checksum == meta.checksum)
        // A read past the data stops at its end, never into the metadata behind it.
        var tail = [UInt8](repeating: 0, count: 100)
        #expect(try tail.withUnsafeMutableBytes { try file.read(at: 9_990, into: $0) } == 10)
        #expect(Array(tail[0..<10]) == Array(first[9_990...]))
        try cache.store(bytes(20, seed: 5), forKey: "k")
        var whole = [UInt8](repeating: 0, count: 10_000)
        #expect(try whole.withUnsafeMutableBytes { try file.read(at: 0, into: $0) } == 10_000)
        #expect(whole == first)
        let replaced = try #require(try cache.openData(forKey: "k"))
        #expect(replaced.size == 20 && replaced.checksum != file.checksum)
        #expect(replaced.checksum == (try cache.metadata(forKey: "k"))?.checksum)
    }
}
