import AssetTestSupport
import Foundation
import Testing
@testable import AssetStorage

@Suite("DiskCache: integrity under corruption, crashes and concurrent processes")
struct DiskCacheIntegrityTests {
    /// An entry's file (data, metadata JSON, footer) and its `.meta.json` (written by a flush).
    func paths(_ dir: TemporaryDirectory, _ key: String) -> (entry: URL, meta: URL) {
        let hash = CacheKeyHash.fileName(for: key)
        let shard = dir.url.appendingPathComponent(String(hash.prefix(2)))
        return (shard.appendingPathComponent("\(hash).entry"), shard.appendingPathComponent("\(hash).meta.json"))
    }

    func flip(_ url: URL, at offset: Int) throws {
        var bytes = try Data(contentsOf: url)
        bytes[offset] ^= 0x40
        try bytes.write(to: url)
    }

    @Test func aFlippedByteInTheDataIsNotServedAndTheEntryIsRemoved() throws {
        let dir = try TemporaryDirectory("flip")
        let cache = try DiskCache(directory: dir.url)
        let payload = [UInt8](repeating: 7, count: 4096)
        try cache.store(payload, forKey: "k")
        #expect(try cache.bytes(forKey: "k") == payload)  // verified once, then trusted by its stamp
        let (entry, _) = paths(dir, "k")
        let handle = try FileHandle(forUpdating: entry)
        try handle.seek(toOffset: 1234)
        try handle.write(contentsOf: Data([8]))
        try handle.close()
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: entry.path))
        #expect(cache.statistics.entries == 0)
    }

    @Test func aFlippedByteFoundOnFirstReadAfterReopen() throws {
        let dir = try TemporaryDirectory("flip2")
        try DiskCache(directory: dir.url).store([UInt8](repeating: 1, count: 100), forKey: "k")
        try flip(paths(dir, "k").entry, at: 50)
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.statistics.entries == 1)  // the open scan reads footers only
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(cache.statistics.entries == 0)
    }

    @Test func aFlippedByteInTheMetadataOrTheFooterIsNotServed() throws {
        let dir = try TemporaryDirectory("flip-meta")
        let cache = try DiskCache(directory: dir.url)
        try cache.store([UInt8](repeating: 2, count: 300), forKey: "json")
        try cache.store([UInt8](repeating: 3, count: 300), forKey: "footer")
        try flip(paths(dir, "json").entry, at: 300 + 20)  // inside the JSON: its hash in the footer disagrees
        let footerFile = paths(dir, "footer").entry
        try flip(footerFile, at: Int(try FileManager.default.attributesOfItem(atPath: footerFile.path)[.size] as! UInt64) - 50)
        #expect(try cache.bytes(forKey: "json") == nil)
        #expect(try cache.metadata(forKey: "footer") == nil)
        #expect(try cache.bytes(forKey: "footer") == nil)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "json").entry.path))
        #expect(!FileManager.default.fileExists(atPath: footerFile.path))
    }

    @Test func aTruncatedEntryFileIsNotServedAndIsRemoved() throws {
        let dir = try TemporaryDirectory("trunc")
        let cache = try DiskCache(directory: dir.url)
        try cache.store([1, 2, 3], forKey: "open")
        try cache.store([4, 5, 6], forKey: "reopen")
        for key in ["open", "reopen"] {
            let entry = paths(dir, key).entry
            let bytes = try Data(contentsOf: entry)
            try bytes.prefix(bytes.count / 2).write(to: entry)
        }
        // While open: the index still has it, but the read sees the file changed.
        #expect(try cache.bytes(forKey: "open") == nil)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "open").entry.path))
        // At open: removed by the scan.
        let reopened = try DiskCache(directory: dir.url)
        #expect(reopened.openReport.removedCorrupt == 1)
        #expect(reopened.statistics.entries == 0)
        #expect(try reopened.bytes(forKey: "reopen") == nil)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "reopen").entry.path))
    }

    @Test func aShortDataFileIsNotServed() throws {
        let dir = try TemporaryDirectory("short")
        let cache = try DiskCache(directory: dir.url)
        try cache.store([UInt8](repeating: 3, count: 1000), forKey: "k")
        let entry = paths(dir, "k").entry
        var bytes = try Data(contentsOf: entry)
        bytes.remove(at: 500)  // one byte of data gone: the footer no longer matches the length
        try bytes.write(to: entry)
        #expect(try cache.bytes(forKey: "k") == nil)
        #expect(cache.statistics.entries == 0)
    }

    @Test func orphansAndTemporariesOfDeadWritersAreCleanedAtOpen() throws {
        let dir = try TemporaryDirectory("orphans")
        do {
            let cache = try DiskCache(configuration: .init(directory: dir.url, accessFlushCount: 1))
            try cache.store([1], forKey: "whole")
            try cache.store([2], forKey: "orphan")
            _ = try cache.bytes(forKey: "orphan")  // a flush writes its .meta.json
            cache.close()
        }
        #expect(FileManager.default.fileExists(atPath: paths(dir, "orphan").meta.path))
        try FileManager.default.removeItem(at: paths(dir, "orphan").entry)
        // A temporary file of a process that no longer exists (pid 2^22 + 1 is above pid_max's default).
        let tmp = dir.url.appendingPathComponent("tmp").appendingPathComponent("4194305-1-1.tmp")
        try Data([9, 9]).write(to: tmp)
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.removedOrphans == 1)
        #expect(cache.openReport.removedTemporaries == 1)
        #expect(cache.openReport.entries == 1)
        #expect(!FileManager.default.fileExists(atPath: paths(dir, "orphan").meta.path))
        #expect(!FileManager.default.fileExists(atPath: tmp.path))
        #expect(try cache.bytes(forKey: "whole") == [1])
    }

    @Test func verifyFindsAndRemovesCorruptEntries() throws {
        let dir = try TemporaryDirectory("verify")
        let cache = try DiskCache(directory: dir.url)
        for i in 0..<20 { try cache.store([UInt8](repeating: UInt8(i), count: 500), forKey: "k\(i)") }
        try flip(paths(dir, "k3").entry, at: 0)
        try FileManager.default.removeItem(at: paths(dir, "k7").entry)
        let report = try cache.verify()
        #expect(report.checked == 20)
        #expect(report.corrupt == 2 && report.removed == 2)
        #expect(report.problems.count == 2)
        #expect(report.problems.contains { $0.hasPrefix("k3: checksum mismatch") })
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
            #expect(ended == .signaled(SIGKILL))

            let cache = try DiskCache(directory: dir.url)
            #expect(cache.statistics.entries > 0)
            for key in cache.keys {
                let bytes = try #require(try cache.bytes(forKey: key), "\(key) is indexed but not served")
                #expect(isWholeWorkerValue(bytes))
            }
            let report = try cache.verify()
            #expect(report.corrupt == 0)
            // No temporary file is left, in tmp/ or beside the entries.
            let leftovers = (FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            cache.close()
        }
    }

    /// Two processes store, remove and read the same keys at once; no read sees a torn value.
    @Test func twoProcessesShareOneDirectory() async throws {
        let dir = try TemporaryDirectory("two")
        let worker = builtProduct("DiskCacheWorker")
        var processes: [ChildProcess] = []
        for seed in [11, 29] {
            processes.append(try ChildProcess(worker, ["mixed", dir.path, "40", "150", "\(seed)"], stdout: .null, stderr: .inherit))
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
            #expect(await process.wait() == .exited(0), "a worker saw a torn value or failed")
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
