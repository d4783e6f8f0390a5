import Foundation
import Testing
@testable import AssetStorage

@Suite("DiskCache: integrity under corruption, crashes and concurrent processes")
struct DiskCacheIntegrityTests {
    func paths(_ dir: TemporaryDirectory, _ key: String) -> (data: URL, meta: URL) {
        let hash = CacheKeyHash.fileName(for: key)
        let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
        return (shard.appendingPathComponent("\(hash).data"), shard.appendingPathComponent("\(hash).meta.json"))
    }

    @Test func aFlippedByteInTheDataIsNotServedAndTheEntryIsRemoved() throws {
        let dir = try TemporaryDirectory("flip")
        let cache = try DiskCache(directory: dir.url)
        let payload = [UInt8](repeating: 7, count: 4096)
        try cache.store(payload, forKey: "k")
        #expect(try cache.bytes(forKey: "k") == payload)  // verified once, then trusted by its stamp
        let (data, meta) = paths(dir, "k")
        let handle = try FileHandle(forUpdating: data)
        try handle.seek(toOffset: 1234)
        try handle.write(contentsOf: Data([8]))
        try handle.close()
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: data.path))
        #expect(!FileManager.default.fileExists(atPath: meta.path))
        #expect(cache.statistics.entries == 0)
    }

    @Test func aFlippedByteFoundOnFirstReadAfterReopen() throws {
        let dir = try TemporaryDirectory("flip2")
        try DiskCache(directory: dir.url).store([UInt8](repeating: 1, count: 100), forKey: "k")
        let (data, _) = paths(dir, "k")
        var bytes = try Data(contentsOf: data)
        bytes[50] ^= 0xFF
        try bytes.write(to: data)
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.statistics.entries == 1)  // the open scan reads metadata only
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(cache.statistics.entries == 0)
    }

    @Test func aTruncatedMetadataFileIsNotServedAndIsRemoved() throws {
        let dir = try TemporaryDirectory("trunc")
        let cache = try DiskCache(directory: dir.url)
        try cache.store([1, 2, 3], forKey: "open")
        try cache.store([4, 5, 6], forKey: "reopen")
        for key in ["open", "reopen"] {
            let meta = paths(dir, key).meta
            let bytes = try Data(contentsOf: meta)
            try bytes.prefix(bytes.count / 2).write(to: meta)
        }
        // While open: the index still has it, but the read sees the metadata file changed.
        #expect(try cache.bytes(forKey: "open") == nil)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "open").data.path))
        // At open: removed by the scan.
        let reopened = try DiskCache(directory: dir.url)
        #expect(reopened.openReport.removedCorrupt == 1)
        #expect(reopened.statistics.entries == 0)
        #expect(try reopened.bytes(forKey: "reopen") == nil)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "reopen").data.path))
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "reopen").meta.path))
    }

    @Test func aShortDataFileIsNotServed() throws {
        let dir = try TemporaryDirectory("short")
        let cache = try DiskCache(directory: dir.url)
        try cache.store([UInt8](repeating: 3, count: 1000), forKey: "k")
        let data = paths(dir, "k").data
        try Data(repeating: 3, count: 999).write(to: data)
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(cache.statistics.entries == 0)
    }

    @Test func orphansAndTemporariesOfDeadWritersAreCleanedAtOpen() throws {
        let dir = try TemporaryDirectory("orphans")
        do {
            let cache = try DiskCache(directory: dir.url)
            try cache.store([1], forKey: "whole")
            try cache.store([2], forKey: "orphan")
            cache.close()
        }
        try FileManager.default.removeItem(at: paths(dir, "orphan").meta)
        // A temporary file of a process that no longer exists (pid 2^22 + 1 is above pid_max's default).
        let tmp = dir.url.appendingPathComponent("tmp").appendingPathComponent("4194305-1-1.tmp")
        try Data([9, 9]).write(to: tmp)
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.removedOrphans == 1)
        #expect(cache.openReport.removedTemporaries == 1)
        #expect(cache.openReport.entries == 1)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "orphan").data.path))
        #expect(!FileManager.default.fileExists(atPath: tmp.path))
        #expect(try cache.bytes(forKey: "whole") == [1])
    }

    @Test func verifyFindsAndRemovesCorruptEntries() throws {
        let dir = try TemporaryDirectory("verify")
        let cache = try DiskCache(directory: dir.url)
        for i in 0..<20 { try cache.store([UInt8](repeating: UInt8(i), count: 500), forKey: "k\(i)") }
        var bad = try Data(contentsOf: paths(dir, "k3").data)
        bad[0] ^= 1
        try bad.write(to: paths(dir, "k3").data)
        try FileManager.default.removeItem(at: paths(dir, "k7").data)
        let report = try cache.verify()
        #expect(report.checked == 20)
        #expect(report.corrupt == 2 && report.removed == 2)
        #expect(report.problems.count == 2)
        #expect(cache.statistics.entries == 18)
        let again = try cache.verify()
        #expect(again.checked == 18 && again.corrupt == 0)
    }

    /// A child process storing entries is killed with SIGKILL at random moments; every reopen
    /// finds only whole entries.
    @Test func killedWritersLeaveOnlyWholeEntries() async throws {
        let dir = try TemporaryDirectory("crash")
        for round in 0..<6 {
            // Killed after a growing, randomized number of whole writes: somewhere inside the next one.
            let writes = 10 + 15 * round + Int.random(in: 0..<10)
            let ended = try await killProduct("DiskCacheWorker", ["write", dir.path, "crash", "200", "1000"], afterWrites: writes)
            #expect(ended == .uncaughtSignal)

            let cache = try DiskCache(directory: dir.url)
            #expect(cache.statistics.entries > 0)
            for key in cache.keys {
                let bytes = try #require(try cache.bytes(forKey: key), "\(key) is indexed but not served")
                #expect(isWholeWorkerValue(bytes))
            }
            let report = try cache.verify()
            #expect(report.corrupt == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path).isEmpty)
            cache.close()
        }
    }

    /// Two processes store, remove and read the same keys at once; no read sees a torn value.
    @Test func twoProcessesShareOneDirectory() async throws {
        let dir = try TemporaryDirectory("two")
        let worker = builtProductsDirectory().appendingPathComponent("DiskCacheWorker")
        var processes: [Process] = []
        for seed in [11, 29] {
            let process = Process()
            process.executableURL = worker
            process.arguments = ["mixed", dir.path, "40", "150", "\(seed)"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            processes.append(process)
        }
        // This process reads along with them.
        let reader = try DiskCache(directory: dir.url)
        var served = 0
        while processes.contains(where: \.isRunning) {
            for i in 0..<40 {
                if let bytes = try reader.bytes(forKey: "shared-\(i)") {
                    #expect(isWholeWorkerValue(bytes))
                    served += 1
                }
            }
            try await Task.sleep(for: .milliseconds(1))  // pacing, not waiting: leave the workers the cores
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "a worker saw a torn value or failed")
        }
        _ = try reader.reloadIndex()
        let report = try reader.verify()
        #expect(report.corrupt == 0)
        for key in reader.keys {
            #expect(isWholeWorkerValue(try #require(try reader.bytes(forKey: key))))
        }
    }
}

/// The DiskCacheWorker's self-checking values: 8 bytes of seed, then an xorshift pattern.
func isWholeWorkerValue(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 8 else { return false }
    let seed = UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
    guard bytes.count == 8 + Int(seed % 20_000) else { return false }
    var state = seed | 1
    for i in 8..<bytes.count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        if bytes[i] != UInt8(truncatingIfNeeded: state) { return false }
    }
    return true
}
