import Foundation
import Testing
@testable import AssetStorage

@Suite("DiskCache: the index snapshot")
struct DiskCacheSnapshotTests {
    func fill(_ dir: URL, count: Int) throws {
        let cache = try DiskCache(directory: dir)
        for i in 0..<count {
            try cache.store([UInt8](repeating: UInt8(i % 256), count: 10 + i), forKey: "k\(i)", info: .init(kind: i % 3 == 0 ? .image : .raw))
        }
        cache.close()
    }

    @Test func reopeningTakesUnchangedEntriesFromTheSnapshot() throws {
        let dir = try TemporaryDirectory("snap")
        try fill(dir.url, count: 50)
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("index.snapshot").path))
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.entries == 50)
        #expect(cache.openReport.fromSnapshot == 50)
        #expect(cache.statistics.perKind[.image]?.entries == 17)
        #expect(cache.totalBytes == (0..<50).reduce(0) { $0 + Int64(10 + $1) })
        for i in [0, 17, 49] {
            #expect(try cache.bytes(forKey: "k\(i)") == [UInt8](repeating: UInt8(i % 256), count: 10 + i))
        }
    }

    @Test func entriesChangedAfterTheSnapshotAreReadFromTheirFiles() throws {
        let dir = try TemporaryDirectory("snap-change")
        try fill(dir.url, count: 20)
        // Another process changes entries while no cache is open here: the snapshot is now old.
        let other = try DiskCache(directory: dir.url)
        try other.store([9, 9, 9], forKey: "k3")
        try other.remove(key: "k4")
        try other.store([7], forKey: "new")
        // Its close would rewrite the snapshot; put the old one back to model a process that died.
        let snapshot = dir.url.appendingPathComponent("index.snapshot")
        let old = try Data(contentsOf: snapshot)
        other.close()
        try old.write(to: snapshot)

        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.entries == 20)
        #expect(cache.openReport.fromSnapshot == 18)  // all but k3 (replaced) and new; k4 is gone
        #expect(try cache.bytes(forKey: "k3") == [9, 9, 9])
        #expect(try cache.bytes(forKey: "k4") == nil)
        #expect(try cache.bytes(forKey: "new") == [7])
        let original: Int64 = (0..<20).reduce(0) { $0 + Int64(10 + $1) }
        let expected: Int64 = original - 13 - 14 + 3 + 1  // k3 (13 bytes) and k4 (14) out, [9, 9, 9] and [7] in
        #expect(cache.totalBytes == expected)
    }

    @Test func aDamagedSnapshotIsIgnored() throws {
        let dir = try TemporaryDirectory("snap-bad")
        try fill(dir.url, count: 30)
        let snapshot = dir.url.appendingPathComponent("index.snapshot")
        var bytes = try Data(contentsOf: snapshot)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: snapshot)
        let cache = try DiskCache(directory: dir.url)
        #expect(cache.openReport.entries == 30)
        #expect(cache.openReport.fromSnapshot == 0)
        cache.close()
        try bytes.prefix(20).write(to: snapshot)  // truncated
        let again = try DiskCache(directory: dir.url)
        #expect(again.openReport.entries == 30 && again.openReport.fromSnapshot == 0)
        #expect(try again.bytes(forKey: "k29") == [UInt8](repeating: 29, count: 39))
    }
}
