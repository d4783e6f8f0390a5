import AssetTestSupport
import Foundation
import Testing

/// Faults of the disk under a running loader (issue 14): a full disk, a read-only cache directory,
/// the directory removed while loads run, and a limit of 64 open files. Each runs the LoaderWorker
/// child process (an AssetLoader over a DiskCache) against a loopback origin. In every case every
/// load returns the origin's bytes, a store the disk refuses degrades to an answer from memory
/// (counted), nothing torn is ever served, and once the cause is gone the cache stores again in the
/// same process.
@Suite("Disk faults under the loader", .serialized)
struct DiskFaultTests {
    static let size = 200_000

    static let canMountTmpfs = MountNamespace.canMountTmpfs
    static let tmpfsSkip = Comment(rawValue: MountNamespace.skipReason)

    /// `/PREFIX/i` answers `size` bytes of the pattern (fresh for an hour); under /slow/ they come in
    /// four pieces 200 ms apart.
    func startOrigin(size: Int = Self.size) async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        let bytes = TestContent.generatedBytes(0..<size)
        let quarter = size / 4
        let headers = [("Cache-Control", "max-age=3600")]
        let prefixes = ["full": 10, "again": 5, "before": 3, "readonly": 5, "writable": 5, "slow": 8, "after": 5, "many": 40, "squeezed": 10, "later": 10]
        for (prefix, count) in prefixes {
            for i in 0..<count {
                let body: TestBody = prefix == "slow"
                    ? .slow(chunks: (0..<4).map { Array(bytes[($0 * quarter)..<(($0 + 1) * quarter)]) }, delay: .milliseconds(200))
                    : .generated(length: size)
                origin.setRoute("/\(prefix)/\(i)", .response(TestResponse(status: 200, headers: headers, body: body)))
            }
        }
        return origin
    }

    @Test(.enabled(if: canMountTmpfs, tmpfsSkip))
    func aFullDiskDegradesToUncachedAnswersAndStoresAgainOnceThereIsSpace() async throws {
        let origin = try await startOrigin()
        defer { Task { await origin.stop() } }
        let mount = try FaultDirectory()
        let worker = try FaultWorker.onTmpfs(mount, size: "3m", origin: origin.baseURL, bodySize: Self.size)
        #expect(try await worker.send("fill \(mount.path)/filler 2700000")["filled"] as? Int ?? 0 > 2_000_000)
        let full = try await worker.send("load full 0 10")
        #expect(full["correct"] as? Int == 10, "\(full)")
        #expect(full["failed"] as? Int == 0)
        #expect(full["storeFailures"] as? Int ?? 0 >= 5, "\(full)")
        #expect(full["cacheFailedStores"] as? Int ?? 0 >= 5)
        #expect(try await worker.send("check")["torn"] as? Int == 0)
        _ = try await worker.send("rm \(mount.path)/filler")
        let again = try await worker.send("load again 0 5")
        #expect(again["correct"] as? Int == 5 && again["stored"] as? Int == 5, "\(again)")
        let check = try await worker.send("check")
        #expect(check["torn"] as? Int == 0 && check["whole"] as? Int ?? 0 >= 5)
        try await worker.quit()
    }

    @Test(.enabled(if: canMountTmpfs, tmpfsSkip))
    func aReadOnlyDirectoryDegradesToUncachedAnswersAndStoresAgainWhenWritable() async throws {
        let origin = try await startOrigin()
        defer { Task { await origin.stop() } }
        let mount = try FaultDirectory()
        let worker = try FaultWorker.onTmpfs(mount, size: "16m", origin: origin.baseURL, bodySize: Self.size)
        #expect(try await worker.send("load before 0 3")["stored"] as? Int == 3)
        // A read-only bind mount of the cache directory over itself: the worker's open descriptors keep
        // the writable mount below, every path it resolves from now on is read-only.
        let cache = mount.path + "/cache"
        let remount = "mount --bind \(cache) \(cache) && mount -o remount,bind,ro \(cache)"
        #expect(try await worker.send("sh \(remount)")["status"] as? Int == 0)
        let readOnly = try await worker.send("load readonly 0 5")
        #expect(readOnly["correct"] as? Int == 5 && readOnly["failed"] as? Int == 0, "\(readOnly)")
        #expect(readOnly["stored"] as? Int == 0 && readOnly["storeFailures"] as? Int == 5, "\(readOnly)")
        let check = try await worker.send("check")
        #expect(check["torn"] as? Int == 0 && check["whole"] as? Int == 3)  // what was stored before is still served
        #expect(try await worker.send("sh umount \(cache)")["status"] as? Int == 0)
        let writable = try await worker.send("load writable 0 5")
        #expect(writable["correct"] as? Int == 5 && writable["stored"] as? Int == 5, "\(writable)")
        try await worker.quit()
    }

    /// Bodies of 600 KB in four pieces 200 ms apart: each load opens its temporary file when the first
    /// 256 KB have come (the second piece), the worker removes the directory the moment it sees one,
    /// and the commits (after the fourth piece, 400 ms later) find their temporary files gone.
    @Test func theCacheDirectoryRemovedWhileLoadsRun() async throws {
        let size = 600_000
        let origin = try await startOrigin(size: size)
        defer { Task { await origin.stop() } }
        let dir = try FaultDirectory()
        let cache = dir.path + "/cache"
        let worker = try FaultWorker([FaultWorker.binary, cache, origin.baseURL, "\(size)"])
        let during = try await worker.send("load-removing slow 0 8")
        #expect(during["correct"] as? Int == 8 && during["failed"] as? Int == 0, "\(during)")
        #expect(during["storeFailures"] as? Int ?? 0 >= 1, "\(during)")
        let after = try await worker.send("load after 0 5")
        #expect(after["correct"] as? Int == 5 && after["stored"] as? Int == 5, "\(after)")
        #expect(FileManager.default.fileExists(atPath: cache + "/tmp"))
        #expect(try await worker.send("check")["torn"] as? Int == 0)
        try await worker.quit()
    }

    @Test func aLimitOf64OpenFiles() async throws {
        let origin = try await startOrigin()
        defer { Task { await origin.stop() } }
        let dir = try FaultDirectory()
        let worker = try FaultWorker(
            ["sh", "-c", "ulimit -n 64 && exec \"$0\" \"$1\" \"$2\" \"$3\"", FaultWorker.binary, dir.path + "/cache", origin.baseURL, "\(Self.size)"])
        let loads = try await worker.send("load many 0 40")
        #expect(loads["correct"] as? Int == 40 && loads["failed"] as? Int == 0, "\(loads)")
        // Descriptors held elsewhere in the process leave the stores none: they degrade, the loads
        // (on the connections already open) still answer.
        let held = try await worker.send("hold 0")
        #expect(held["limit"] as? Int == 64)
        let squeezed = try await worker.send("load squeezed 0 10")
        #expect(squeezed["correct"] as? Int == 10 && squeezed["failed"] as? Int == 0, "\(squeezed)")
        #expect(squeezed["storeFailures"] as? Int ?? 0 >= 1, "\(squeezed)")
        _ = try await worker.send("release")
        let released = try await worker.send("load later 0 10")
        #expect(released["correct"] as? Int == 10 && released["stored"] as? Int == 10, "\(released)")
        #expect(try await worker.send("check")["torn"] as? Int == 0)
        try await worker.quit()
    }
}

/// A temporary directory for a fault test (a tmpfs is mounted over it in the worker's namespace only).
final class FaultDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-fault-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The LoaderWorker child: one command line in, one JSON line out. Reads happen on a thread of
/// their own, so that the origin in this process keeps answering.
final class FaultWorker: @unchecked Sendable {
    static var binary: String { builtProduct("LoaderWorker") }

    private let process: ChildProcess
    private var buffer = Data()

    /// A worker whose cache is `mount/cache` on a tmpfs of `size` (mount's notation: `3m`) mounted over
    /// `mount` in a private mount namespace, so that only the worker sees it.
    static func onTmpfs(_ mount: FaultDirectory, size: String, origin: String, bodySize: Int) throws -> FaultWorker {
        try FaultWorker(
            ["unshare", "-m", "--propagation", "private", "sh", "-c",
             "mount -t tmpfs -o size=\(size) tmpfs \"$0\" && exec \"$1\" \"$0/cache\" \"$2\" \"$3\"",
             mount.path, binary, origin, "\(bodySize)"])
    }

    /// Starts `command` (found on the PATH unless absolute).
    init(_ command: [String]) throws {
        process = try ChildProcess(command[0], Array(command.dropFirst()), stdin: .pipe, stdout: .pipe, stderr: .inherit)
    }

    deinit {
        // a worker the test did not quit (it failed first) is stopped and reaped
        process.send(SIGTERM)
        Thread { [process] in process.waitUntilExit() }.start()
    }

    func send(_ command: String) async throws -> [String: Any] {
        process.standardInput!.write(Data((command + "\n").utf8))
        let line: Data? = await onOwnThread { [self] in
            while !buffer.contains(0x0A) {
                let chunk = process.standardOutput!.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            guard let end = buffer.firstIndex(of: 0x0A) else { return nil }
            let line = buffer[buffer.startIndex..<end]
            buffer = Data(buffer[(end + 1)...])
            return Data(line)
        }
        let text = try #require(line, "the worker ended before answering \(command)")
        return try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
    }

    func quit() async throws {
        _ = try await send("quit")
        #expect(await process.wait() == .exited(0))
    }
}
