import Crypto
import Foundation
import Testing
@testable import AssetStorage

@Suite("ChunkStore: verify and prune")
struct ChunkStoreVerifyTests {
    static let chunk = 4096

    func bytes(_ count: Int, _ seed: UInt8) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(seed)) } }

    /// A store with `resources` resources of four whole chunks each.
    func filled(_ dir: TemporaryDirectory, resources: Int, clock: ManualClock = ManualClock()) throws -> ChunkStore {
        let store = try ChunkStore(configuration: .init(directory: dir.url, chunkSize: Self.chunk, maxBytes: 1 << 30, clock: clock))
        for r in 0..<resources {
            let record = try store.replaceResource(forKey: "k\(r)", info: .init(totalLength: Int64(4 * Self.chunk)))
            for index in 0..<4 {
                try store.writeChunk(forKey: "k\(r)", generation: record.generation, index: index, bytes: bytes(Self.chunk, UInt8(r * 4 + index)))
            }
            clock.advance(by: 10)
        }
        return store
    }

    func chunkPath(_ store: ChunkStore, _ key: String, _ index: Int) throws -> String {
        let record = try #require(try store.record(forKey: key))
        return store.chunkPath(.init(hash: CacheKeyHash.fileName(for: key), generation: record.generation, index: index))
    }

    @Test func everyChunkCarriesItsChecksum() throws {
        let dir = try TemporaryDirectory("verify-sum")
        let store = try filled(dir, resources: 1)
        let record = try #require(try store.record(forKey: "k0"))
        for (index, chunk) in record.chunks {
            let digest = SHA256.hash(data: bytes(Self.chunk, UInt8(index))).map { String(format: "%02x", $0) }.joined()
            #expect(chunk.checksum == digest)
        }
        #expect(ChunkRecord(jsonBytes: record.jsonBytes) == record)
        let report = try store.verify()
        #expect(report.resources == 1 && report.checked == 4 && report.corrupt == 0 && report.removed == 0 && report.problems.isEmpty)
    }

    @Test func aFlippedATruncatedAndAMissingChunkAreFoundAndDropped() throws {
        let dir = try TemporaryDirectory("verify-bad")
        let store = try filled(dir, resources: 2)
        var flipped = try Data(contentsOf: URL(fileURLWithPath: try chunkPath(store, "k0", 1)))
        flipped[100] ^= 0x40
        try flipped.write(to: URL(fileURLWithPath: try chunkPath(store, "k0", 1)))
        try Data(bytes(10, 0)).write(to: URL(fileURLWithPath: try chunkPath(store, "k0", 2)))
        try FileManager.default.removeItem(atPath: try chunkPath(store, "k1", 3))

        let report = try store.verify()
        #expect(report.checked == 8)
        #expect(report.corrupt == 3)
        #expect(report.removed == 3)
        #expect(report.problems.sorted() == [
            "k0: chunk 1: checksum mismatch", "k0: chunk 2: 10 bytes, the record says 4096", "k1: chunk 3: the chunk file is missing",
        ])
        #expect(Set(try #require(try store.record(forKey: "k0")).chunks.keys) == [0, 3])
        #expect(Set(try #require(try store.record(forKey: "k1")).chunks.keys) == [0, 1, 2])
        let generation = try #require(try store.record(forKey: "k0")).generation
        #expect(try store.readChunk(forKey: "k0", generation: generation, index: 1) == nil)
        #expect(!FileManager.default.fileExists(atPath: try chunkPath(store, "k0", 1)))
        #expect(try store.verify().corrupt == 0)
        store.close()
        // another process opening the directory sees the same
        let reopened = try ChunkStore(configuration: .init(directory: dir.url, chunkSize: Self.chunk))
        #expect(reopened.statistics.chunks == 5)
    }

    @Test func recordsWrittenBeforeChecksumsAreCheckedByLength() throws {
        let dir = try TemporaryDirectory("verify-old")
        let store = try filled(dir, resources: 1)
        let record = try #require(try store.record(forKey: "k0"))
        store.close()
        // the record as the previous format wrote it: [index, length, access] without the checksum
        var old = record
        for index in old.chunks.keys { old.chunks[index]?.checksum = nil }
        let hash = CacheKeyHash.fileName(for: "k0")
        try Data(old.jsonBytes).write(to: dir.url.appendingPathComponent("\(hash)/record.json"))
        let reopened = try ChunkStore(configuration: .init(directory: dir.url, chunkSize: Self.chunk))
        #expect(try reopened.record(forKey: "k0")?.chunks.count == 4)
        #expect(try reopened.verify().corrupt == 0)
        try Data(bytes(7, 0)).write(to: URL(fileURLWithPath: try chunkPath(reopened, "k0", 0)))
        #expect(try reopened.verify().corrupt == 1)
    }

    @Test func pruneRemovesOldResourcesThenTheLeastRecentlyUsedChunks() throws {
        let dir = try TemporaryDirectory("prune")
        let clock = ManualClock()
        let store = try filled(dir, resources: 4, clock: clock)  // k0 stored at 0 s, k1 at 10 s, ...
        // k0 and k1 are older than 25 s at 40 s; then 6 chunks of k2 and k3 fit 6 chunks' bytes
        let byAge = try store.prune(maxAge: 25)
        #expect(byAge.resources == 2 && byAge.chunks == 8 && byAge.bytes == Int64(8 * Self.chunk))
        #expect(try store.record(forKey: "k0") == nil)
        let generation = try #require(try store.record(forKey: "k3")).generation
        _ = try store.readChunk(forKey: "k3", generation: generation, index: 0)  // k3's chunk 0 is now the most recent
        let bySize = try store.prune(maxBytes: Int64(5 * Self.chunk))
        #expect(bySize.chunks == 3)
        #expect(store.totalBytes == Int64(5 * Self.chunk))
        #expect(try store.record(forKey: "k3")?.contains(chunk: 0) == true)
        #expect(try store.prune(maxBytes: 0).chunks == 5)
        #expect(store.statistics.chunks == 0)
    }
}
