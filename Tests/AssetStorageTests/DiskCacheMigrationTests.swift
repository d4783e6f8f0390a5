import Crypto
import Foundation
import Testing
@testable import AssetStorage

/// A directory of the two-file layout (`<hash>.data` + `<hash>.meta.json`) opened by the one-file
/// layout: migrated in place, nothing lost.
@Suite("DiskCache: opening a directory of the two-file layout")
struct DiskCacheMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/disk-cache-v1")

    func copyFixture() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("migrate")
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture.path) {
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(name), to: dir.url.appendingPathComponent(name))
        }
        return dir
    }

    func legacyFiles(_ dir: URL, suffix: String) throws -> [String] {
        let names = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }

    /// `Fixtures/disk-cache-v1` was written by the code before entry files (commit 6c6ca93): six
    /// entries of the DiskCacheWorker (self-checking values, some read and flushed) and a JPEG
    /// fetched by `assetpipe get` and revalidated once, with its HTTP exchange.
    @Test func theCommittedFixtureOpensWithNothingLost() throws {
        let dir = try copyFixture()
        var before: [String: CacheMetadata] = [:]
        for name in try legacyFiles(dir.url, suffix: ".meta.json") {
            let meta = try #require(CacheMetadata(jsonBytes: Array(try Data(contentsOf: dir.url.appendingPathComponent(name)))))
            before[meta.key] = meta
        }
        #expect(before.count == 7)

        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.migrated == 7)
        #expect(cache.openReport.entries == 7)
        #expect(cache.openReport.removedCorrupt == 0)
        #expect(try legacyFiles(dir.url, suffix: ".data").isEmpty)
        #expect(try legacyFiles(dir.url, suffix: ".entry").count == 7)
        #expect(Set(cache.keys) == Set(before.keys))
        let jpeg = try Data(contentsOf: Self.fixture.deletingLastPathComponent().appendingPathComponent("jpeg/libjpeg-turbo/testorig.jpg"))
        for (key, old) in before {
            let bytes = try #require(try cache.bytes(forKey: key), "\(key) is not served")
            if key.hasPrefix("http") {
                #expect(Data(bytes) == jpeg)
            } else {
                #expect(isWholeWorkerValue(bytes))
            }
            // Every field is kept: the checksum (still the SHA-256), the dates, the counts, the exchange.
            let meta = try #require(try cache.metadata(forKey: key))
            #expect(meta.checksum == old.checksum)
            #expect(meta.checksum == CacheKeyHash.hex(SHA256.hash(data: bytes)))
            #expect(meta.createdDate == old.createdDate)
            #expect(meta.accessCount == old.accessCount + 1)
            #expect(meta.http == old.http && meta.lastModified == old.lastModified && meta.contentType == old.contentType)
            #expect(meta.kind == old.kind && meta.size == old.size)
        }
        #expect(before.values.contains { $0.accessCount > 0 })
        #expect(before.values.contains { $0.http != nil })
        let verified = try cache.verify()
        #expect(verified.checked == 7 && verified.corrupt == 0)
        cache.close()

        let again = try DiskCache(directory: dir.url)
        #expect(again.openReport.migrated == 0 && again.openReport.entries == 7)
        #expect(again.openReport.fromSnapshot == 7)
    }

    /// Today's format written by hand: a whole entry, one whose data disagrees with its metadata, a
    /// data file without metadata, and one whose migration a crash cut between its append and its rename.
    @Test func handWrittenOldEntriesAreMigratedOrCleaned() throws {
        let dir = try TemporaryDirectory("migrate-hand")
        func write(_ key: String, _ bytes: [UInt8], checksumOf: [UInt8]? = nil, size: Int? = nil, meta: Bool = true) throws -> URL {
            let hash = CacheKeyHash.fileName(for: key)
            let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            try Data(bytes).write(to: shard.appendingPathComponent("\(hash).data"))
            if meta {
                let sha = CacheKeyHash.hex(SHA256.hash(data: checksumOf ?? bytes))
                let json = """
                    {"format":1,"key":"\(key)","originalUrlString":null,"createdDate":"2026-01-02T03:04:05.678Z",\
                    "eTag":"\\"v1\\"","lastModified":null,"accessCount":5,"lastAccessTime":"2026-01-03T00:00:00.000Z",\
                    "size":\(size ?? bytes.count),"contentType":"image/png","kind":"image","checksum":"\(sha)","expirationDate":null}
                    """
                try Data(json.utf8).write(to: shard.appendingPathComponent("\(hash).meta.json"))
            }
            return shard.appendingPathComponent("\(hash).data")
        }
        let good = [UInt8](repeating: 0xAB, count: 3000)
        _ = try write("good", good)
        _ = try write("short", [1, 2, 3], size: 4)  // removed at open
        _ = try write("mismatch", [1, 2, 3], checksumOf: [1, 2, 4])  // migrated, never served: the first read checks it
        _ = try write("no-meta", [9], meta: false)
        // An interrupted migration: migrate "cut" once in another directory, then put back its
        // appended `.data` file and its metadata as a crash before the rename would leave them.
        let cutBytes = [UInt8](repeating: 7, count: 500)
        let cutData = try write("cut", cutBytes)
        let other = try TemporaryDirectory("migrate-other")
        let cutShard = cutData.deletingLastPathComponent()
        try FileManager.default.copyItem(at: cutShard, to: other.url.appendingPathComponent(cutShard.lastPathComponent))
        try DiskCache(directory: other.url).close()
        let appended = other.url.appendingPathComponent(cutShard.lastPathComponent)
            .appendingPathComponent(cutData.deletingPathExtension().lastPathComponent + ".entry")
        try FileManager.default.removeItem(at: cutData)
        try FileManager.default.copyItem(at: appended, to: cutData)

        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.migrated == 3)
        #expect(cache.openReport.removedCorrupt == 1)
        #expect(cache.openReport.removedOrphans == 1)
        #expect(try cache.bytes(forKey: "good") == good)
        #expect(try cache.bytes(forKey: "cut") == cutBytes)
        #expect(try cache.bytes(forKey: "mismatch") == nil)
        #expect(try cache.bytes(forKey: "short") == nil)
        #expect(try cache.bytes(forKey: "no-meta") == nil)
        let meta = try #require(try cache.metadata(forKey: "good"))
        #expect(meta.eTag == "\"v1\"" && meta.accessCount == 6 && meta.kind == .image)
        #expect(meta.createdDate == Date(timeIntervalSince1970: 1_767_323_045.678))
        #expect(cache.statistics.perKind[.image]?.entries == 2)
        #expect(try legacyFiles(dir.url, suffix: ".data").isEmpty)
    }
}
