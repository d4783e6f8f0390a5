import Crypto
import AssetTestSupport
import Foundation
import Testing
@testable import AssetStorage

@Suite("ChunkStore: chunks, records and the byte budget")
struct ChunkStoreTests {
    static let chunk = 4096

    func open(_ dir: TemporaryDirectory, budget: Int64 = 1 << 30) throws -> ChunkStore {
        try ChunkStore(configuration: .init(directory: dir.url, chunkSize: Self.chunk, maxBytes: budget))
    }

    func bytes(_ count: Int, _ seed: UInt8) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) } }

    @Test func chunksAndTheRecordSurviveAReopen() throws {
        let dir = try TemporaryDirectory("chunks")
        let store = try open(dir)
        let info = ChunkRecord.ResourceInfo(totalLength: Int64(2 * Self.chunk + 100), eTag: "\"a\"", contentType: "video/mp4")
        let record = try store.replaceResource(forKey: "k", info: info)
        #expect(record.chunkCount == 3)
        #expect(try store.writeChunk(forKey: "k", generation: record.generation, index: 2, bytes: bytes(100, 3)) == .stored)
        #expect(try store.writeChunk(forKey: "k", generation: record.generation, index: 0, bytes: bytes(Self.chunk, 1)) == .stored)
        #expect(try store.writeChunk(forKey: "k", generation: record.generation, index: 0, bytes: bytes(Self.chunk, 9)) == .alreadyPresent)
        // a chunk of the wrong length is refused
        #expect(throws: StorageError.self) { try store.writeChunk(forKey: "k", generation: record.generation, index: 1, bytes: bytes(10, 1)) }
        #expect(try store.readChunk(forKey: "k", generation: record.generation, index: 1) == nil)
        #expect(try store.readChunk(forKey: "k", generation: record.generation, index: 0, range: 10..<20) == Data(bytes(Self.chunk, 1)[10..<20]))
        store.close()

        let reopened = try open(dir)
        let again = try #require(try reopened.record(forKey: "k"))
        #expect(again.generation == record.generation)
        #expect(again.info == info)
        #expect(Set(again.chunks.keys) == [0, 2])
        #expect(try reopened.readChunk(forKey: "k", generation: record.generation, index: 2) == Data(bytes(100, 3)))
        #expect(reopened.statistics == .init(resources: 1, chunks: 2, bytes: Int64(Self.chunk + 100), evictedChunks: 0))
    }

    @Test func aNewVersionDropsTheOldChunksAndRefusesTheirWrites() throws {
        let dir = try TemporaryDirectory("versions")
        let store = try open(dir)
        let v1 = try store.replaceResource(forKey: "k", info: .init(totalLength: Int64(4 * Self.chunk), eTag: "\"1\""))
        try store.writeChunk(forKey: "k", generation: v1.generation, index: 0, bytes: bytes(Self.chunk, 1))
        let v2 = try store.settleVersion(forKey: "k") { existing in
            #expect(existing?.generation == v1.generation)
            return .replace(.init(totalLength: Int64(4 * Self.chunk), eTag: "\"2\""))
        }
        #expect(v2.generation != v1.generation && v2.chunks.isEmpty)
        #expect(try store.readChunk(forKey: "k", generation: v1.generation, index: 0) == nil)
        #expect(try store.writeChunk(forKey: "k", generation: v1.generation, index: 1, bytes: bytes(Self.chunk, 1)) == .staleGeneration)
        // keeping a version keeps its chunks; a length that contradicts one drops it
        try store.writeChunk(forKey: "k", generation: v2.generation, index: 3, bytes: bytes(Self.chunk, 2))
        try store.writeChunk(forKey: "k", generation: v2.generation, index: 0, bytes: bytes(Self.chunk, 2))
        let kept = try store.settleVersion(forKey: "k") { .keep(($0?.info)!) }
        #expect(kept.generation == v2.generation && kept.chunks.count == 2)
        let shorter = try #require(try store.updateInfo(forKey: "k", generation: v2.generation) { $0.totalLength = Int64(3 * Self.chunk + 5) })
        #expect(Set(shorter.chunks.keys) == [0])
        #expect(try store.removeResource(forKey: "k"))
        #expect(try store.record(forKey: "k") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.count == 64 }.isEmpty)
    }

    @Test func theBudgetEvictsTheLeastRecentlyUsedChunkButNeverAPinnedOne() throws {
        let dir = try TemporaryDirectory("budget")
        let clock = ManualClock()
        let store = try ChunkStore(configuration: .init(directory: dir.url, chunkSize: Self.chunk, maxBytes: Int64(4 * Self.chunk), clock: clock))
        let a = try store.replaceResource(forKey: "a", info: .init(totalLength: Int64(10 * Self.chunk)))
        let b = try store.replaceResource(forKey: "b", info: .init(totalLength: Int64(10 * Self.chunk)))
        for index in 0..<4 {
            clock.advance(by: 1)
            try store.writeChunk(forKey: index < 2 ? "a" : "b", generation: index < 2 ? a.generation : b.generation, index: index, bytes: bytes(Self.chunk, 0))
        }
        clock.advance(by: 1)
        _ = try store.readChunk(forKey: "a", generation: a.generation, index: 0)  // a/0 is now the most recent
        clock.advance(by: 1)
        #expect(try store.writeChunk(forKey: "b", generation: b.generation, index: 4, bytes: bytes(Self.chunk, 0)) == .stored)
        #expect(try store.record(forKey: "a")?.chunks.keys.sorted() == [0])  // a/1 was the least recently used
        #expect(store.totalBytes == Int64(4 * Self.chunk))

        // pin everything: nothing can make room
        store.state.withLock { s in
            for (hash, resource) in s.resources {
                for index in resource.record.chunks.keys {
                    s.pins[ChunkStore.ChunkID(hash: hash, generation: resource.record.generation, index: index)] = 1
                }
            }
        }
        #expect(try store.writeChunk(forKey: "b", generation: b.generation, index: 5, bytes: bytes(Self.chunk, 0)) == .noRoom)
        #expect(store.totalBytes == Int64(4 * Self.chunk))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path).isEmpty)
    }

    @Test func openingRemovesOrphansAndClaimsOfMissingChunks() throws {
        let dir = try TemporaryDirectory("repair")
        var record: ChunkRecord
        do {
            let store = try open(dir)
            record = try store.replaceResource(forKey: "k", info: .init(totalLength: Int64(3 * Self.chunk)))
            for index in 0..<3 { try store.writeChunk(forKey: "k", generation: record.generation, index: index, bytes: bytes(Self.chunk, 5)) }
            store.close()
        }
        let folder = dir.url.appendingPathComponent(CacheKeyHash.fileName(for: "k"))
        let name = { (index: Int) in folder.appendingPathComponent("\(ChunkStore.hex(record.generation))-\(index).chunk") }
        try FileManager.default.removeItem(at: name(1))                                  // claimed, missing
        try Data(repeating: 1, count: 100).write(to: name(2))                            // claimed, wrong size
        try Data(repeating: 1, count: Self.chunk).write(to: folder.appendingPathComponent("0000000000000001-0.chunk"))  // unclaimed
        try Data([1]).write(to: dir.url.appendingPathComponent("tmp/4194305-1-1.tmp"))   // a dead writer's
        let junk = dir.url.appendingPathComponent(String(repeating: "a", count: 64))       // a folder without a record
        try FileManager.default.createDirectory(at: junk, withIntermediateDirectories: true)
        try Data([1]).write(to: junk.appendingPathComponent("ffffffffffffffff-0.chunk"))

        let store = try open(dir)
        #expect(try store.record(forKey: "k")?.chunks.keys.sorted() == [0])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["\(ChunkStore.hex(record.generation))-0.chunk", "record.json"])
        #expect(!FileManager.default.fileExists(atPath: junk.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path).isEmpty)
    }

    @Test func twoStoresOnOneDirectoryShareRecordsAndTheBudget() throws {
        let dir = try TemporaryDirectory("shared")
        let budget = Int64(6 * Self.chunk)
        let first = try open(dir, budget: budget), second = try open(dir, budget: budget)
        let record = try first.replaceResource(forKey: "k", info: .init(totalLength: Int64(20 * Self.chunk)))
        for index in 0..<10 {
            let store = index % 2 == 0 ? first : second
            #expect(try store.writeChunk(forKey: "k", generation: record.generation, index: index, bytes: bytes(Self.chunk, UInt8(index))) == .stored)
        }
        #expect(first.statistics.bytes <= budget && second.statistics.bytes <= budget)
        #expect(try second.readChunk(forKey: "k", generation: record.generation, index: 9) == Data(bytes(Self.chunk, 9)))
        // one drops the resource; the other sees it gone
        try first.removeResource(forKey: "k")
        #expect(try second.record(forKey: "k") == nil)
        #expect(try second.writeChunk(forKey: "k", generation: record.generation, index: 0, bytes: bytes(Self.chunk, 0)) == .staleGeneration)
    }

    /// A child process writing chunks is killed with SIGKILL at random moments; every reopen
    /// serves only whole chunks of the version their record names (checked by SHA-256).
    @Test func killedWritersLeaveOnlyWholeChunks() async throws {
        let dir = try TemporaryDirectory("chunk-crash")
        var verified = 0
        for round in 0..<5 {
            // Killed after a growing, randomized number of whole versions: somewhere inside the next one.
            let writes = 2 + 3 * round + Int.random(in: 0..<3)
            let ended = try await killProduct(
                "ChunkStoreWorker", ["write", dir.path, "8", "100000", "\(Self.chunk)", "\(40 * Self.chunk)"], afterWrites: writes)
            #expect(ended == .signaled(SIGKILL))

            let store = try open(dir, budget: Int64(40 * Self.chunk))
            #expect(store.totalBytes <= Int64(40 * Self.chunk))
            for key in store.keys {
                let record = try #require(try store.record(forKey: key))
                let seed = try #require(record.info.eTag.flatMap { UInt64($0.filter(\.isNumber)) })
                for index in record.chunks.keys {
                    let data = try #require(try store.readChunk(forKey: key, generation: record.generation, index: index), "\(key)/\(index) is claimed but not served")
                    let start = Int64(index * Self.chunk)
                    #expect(SHA256.hash(data: data) == SHA256.hash(data: workerBytes(seed: seed, start..<(start + Int64(data.count)))))
                    verified += 1
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path).isEmpty)
            store.close()
        }
        #expect(verified > 0)
    }

    /// Two processes write, read and drop the same resources at once; no read sees a torn chunk
    /// or a chunk of another version.
    @Test func twoProcessesShareOneDirectory() async throws {
        let dir = try TemporaryDirectory("chunk-two")
        let worker = builtProduct("ChunkStoreWorker")
        let processes = try [11, 29].map { seed in
            try ChildProcess(
                worker, ["mixed", dir.path, "4", "60", "\(seed)", "\(Self.chunk)", "\(24 * Self.chunk)"],
                stdout: .null, stderr: .inherit)
        }
        for process in processes { #expect(await process.wait() == .exited(0)) }
        let store = try open(dir, budget: Int64(24 * Self.chunk))
        #expect(store.statistics.bytes <= Int64(24 * Self.chunk))
    }
}

/// The worker's pattern (Tests/Workers/ChunkStoreWorker): byte `o` of version `seed`.
func workerBytes(seed: UInt64, _ range: Range<Int64>) -> [UInt8] {
    range.map { offset in
        var x = UInt64(bitPattern: offset) &+ seed &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29; x &*= 0xBF58_476D_1CE4_E5B9; x ^= x >> 32
        return UInt8(truncatingIfNeeded: x)
    }
}
