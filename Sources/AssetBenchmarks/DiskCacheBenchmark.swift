import ArgumentParser
import AssetStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Disk cache figures against raw POSIX calls on the same files, in one run:
/// a 50 KB hit (warm page cache) against open/read/close, a 50 KB store against
/// open/write/close/rename, and the time to open caches of growing size (the index build) with the
/// index's memory. Hits and stores go in rounds, ours and the peer alternating which goes first,
/// with a `sync` before every timed store round; medians and the spread are reported.
struct DiskCacheBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk-cache", abstract: "DiskCache hit, store and open against raw POSIX I/O.")

    @Option(help: "Directory for the benchmark's files (on the disk under test).")
    var directory: String = FileManager.default.temporaryDirectory.path

    @Option(help: "Entry size in bytes.")
    var size: Int = 50_000

    @Option(help: "Operations per timed round.")
    var operations: Int = 2_000

    @Option(help: "Cache sizes (entries) for the open benchmark, comma-separated.")
    var openSizes: String = "25000,50000,100000,1000000"

    @Flag(help: "Keep the benchmark's directory (to profile opening it again).")
    var keep = false

    func run() async throws {
        let root = URL(fileURLWithPath: directory).appendingPathComponent("assetpipe-bench-disk-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: root) } else { print("kept \(root.path)") } }
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761) }

        // Hits.
        let cache = try DiskCache(configuration: .init(directory: root.appendingPathComponent("cache"), accessFlushInterval: 3600, accessFlushCount: .max))
        let keys = (0..<200).map { "https://example.org/assets/\($0).png" }
        for key in keys { try cache.store(payload, forKey: key) }
        for key in keys { _ = try cache.bytes(forKey: key) }  // first reads verify the checksums
        let rawDir = root.appendingPathComponent("raw").path
        try FileManager.default.createDirectory(atPath: rawDir, withIntermediateDirectories: true)
        let rawPaths = keys.indices.map { "\(rawDir)/\($0).data" }
        for path in rawPaths { try Data(payload).write(to: URL(fileURLWithPath: path)) }
        let metaTimesBefore = try metadataTimes(root.appendingPathComponent("cache"))

        var ours: [Double] = [], raw: [Double] = []
        for round in 0..<7 {
            let hitOurs = { try time(operations) { i in _ = try cache.bytes(forKey: keys[i % keys.count]) } }
            let hitRaw = { try time(operations) { i in _ = try rawRead(rawPaths[i % rawPaths.count], size: size) } }
            if round % 2 == 0 {
                ours.append(try hitOurs())
                raw.append(try hitRaw())
            } else {
                raw.append(try hitRaw())
                ours.append(try hitOurs())
            }
        }
        let writesOnHit = try metadataTimes(root.appendingPathComponent("cache")) == metaTimesBefore ? 0 : 1

        // Stores: a sync before each timed round, ours and the peer alternating which goes first.
        var storeOurs: [Double] = [], storeRaw: [Double] = []
        let storeCache = try DiskCache(configuration: .init(directory: root.appendingPathComponent("store"), maxBytes: .max))
        let rawStoreDir = root.appendingPathComponent("rawstore").path
        try FileManager.default.createDirectory(atPath: rawStoreDir, withIntermediateDirectories: true)
        for round in 0..<7 {
            let storeOursRound = {
                sync()
                return try time(operations / 4) { i in try storeCache.store(payload, forKey: "r\(round)-\(i)") }
            }
            let storeRawRound = {
                sync()
                return try time(operations / 4) { i in
                    try rawWriteRename(payload, temp: "\(rawStoreDir)/tmp-\(i)", final: "\(rawStoreDir)/r\(round)-\(i).data")
                }
            }
            if round % 2 == 0 {
                storeOurs.append(try storeOursRound())
                storeRaw.append(try storeRawRound())
            } else {
                storeRaw.append(try storeRawRound())
                storeOurs.append(try storeOursRound())
            }
        }
        cache.close()
        storeCache.close()

        // Opening caches of growing size.
        var openRows: [(Int, Bool, Double, Double)] = []
        var indexRows: [(Int, Int, Int)] = []  // entries, index bytes, resident growth while opening
        let openDir = root.appendingPathComponent("open")
        let small = [UInt8](repeating: 1, count: 64)
        var stored = 0
        for target in openSizes.split(separator: ",").compactMap({ Int($0) }).sorted() {
            let filler = try DiskCache(configuration: .init(directory: openDir, maxBytes: .max, maxCount: .max))
            while stored < target {
                try filler.store(small, forKey: "https://cdn.example.org/a/\(stored).json")
                stored += 1
            }
            filler.close()
            for useSnapshot in [true, false] {
                var times: [Double] = []
                for _ in 0..<3 {
                    if !useSnapshot { try? FileManager.default.removeItem(at: openDir.appendingPathComponent("index.snapshot")) }
                    sync()
                    let residentBefore = residentBytes()
                    let start = DispatchTime.now().uptimeNanoseconds
                    let opened = try DiskCache(configuration: .init(directory: openDir, maxBytes: .max, maxCount: .max))
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    guard opened.statistics.entries == target, opened.openReport.fromSnapshot == (useSnapshot ? target : 0) else {
                        throw ValidationError("the index found \(opened.statistics.entries) of \(target) entries")
                    }
                    if useSnapshot && times.count == 1 {
                        indexRows.append((target, opened.statistics.indexBytes, residentBytes() - residentBefore))
                    }
                    opened.close()
                }
                let t = median(times)
                openRows.append((target, useSnapshot, t, t / Double(target) * 1e6))
            }
        }

        func spread(_ values: [Double]) -> String { String(format: "%.1f-%.1f", values.min()! * 1e6, values.max()! * 1e6) }
        let hitRatio = median(ours) / median(raw), storeRatio = median(storeOurs) / median(storeRaw)
        func verdict(_ met: Bool) -> String { met ? "**met**" : "**not met**" }
        print("| figure | ours (median; spread) | peer (median; spread) | ours / peer | goal |")
        print("|---|---|---|---|---|")
        print(String(format: "| %d KB hit, warm page cache (us/op) | %.1f; %@ | %.1f; %@ (open/read/close) | %.2fx the time | within 1.3x: %@ |",
                     size / 1000, median(ours) * 1e6, spread(ours), median(raw) * 1e6, spread(raw), hitRatio, verdict(hitRatio <= 1.3)))
        print("| metadata files written by \(operations * 7) hits | \(writesOnHit) | - | - | 0: \(verdict(writesOnHit == 0)) |")
        print(String(format: "| %d KB store (us/op) | %.1f; %@ | %.1f; %@ (open/write/close/rename) | %.2fx the time | within 1.3x: %@ |",
                     size / 1000, median(storeOurs) * 1e6, spread(storeOurs), median(storeRaw) * 1e6, spread(storeRaw), storeRatio, verdict(storeRatio <= 1.3)))
        for (n, snapshot, t, perEntry) in openRows {
            let how = snapshot ? "after a clean close (index snapshot)" : "after a crash (no snapshot: every entry's footer read)"
            let goal: String
            switch (n, snapshot) {
            case (100_000, _): goal = "under 1 s: \(verdict(t < 1))"
            case (1_000_000, true): goal = "under 5 s: \(verdict(t < 5))"
            default: goal = "-"
            }
            print(String(format: "| open a cache of %d entries %@ (s) | %.3f | - | %.2f us/entry | %@ |", n, how, t, perEntry, goal))
        }
        for (n, bytes, resident) in indexRows {
            let perEntry = Double(bytes) / Double(n)
            let goal = n == 1_000_000 ? "at most 200: \(verdict(perEntry <= 200))" : "-"
            print(String(format: "| index memory at %d entries (bytes/entry: records and table; resident growth while opening) | %.0f; %.0f | - | - | %@ |",
                         n, perEntry, Double(resident) / Double(n), goal))
        }
    }

    /// The process's resident set (VmRSS), in bytes.
    func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kib * 1024
    }

    /// Seconds per operation over `count` operations.
    func time(_ count: Int, _ body: (Int) throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count { try body(i) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(count)
    }

    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    func metadataTimes(_ dir: URL) throws -> [String: Date] {
        var times: [String: Date] = [:]
        let enumerator = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.contentModificationDateKey])
        while let url = enumerator?.nextObject() as? URL {
            // Entry files must not change and no `.meta.json` may appear.
            guard url.lastPathComponent.hasSuffix(".meta.json") || url.lastPathComponent.hasSuffix(".entry") else { continue }
            times[url.path] = try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        }
        return times
    }
}

/// The peer: what a program that knows the file and its size does, with no cache around it.
func rawRead(_ path: String, size: Int) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw POSIXError(.ENOENT) }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: size)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, size) }
    guard n == size else { throw POSIXError(.EIO) }
    return bytes
}

func rawWriteRename(_ bytes: [UInt8], temp: String, final: String) throws {
    let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard n == bytes.count, rename(temp, final) == 0 else { throw POSIXError(.EIO) }
}
