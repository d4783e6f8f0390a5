import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

/// `assetpipe prefetch` when the disk fails it (issue 14): the cache directory removed while the
/// prefetch runs, a limit of 64 open files, a read-only cache directory and a full disk. In each,
/// every item is answered by the origin and none fails; a store the disk refuses is counted in the
/// summary (`storeFailures`) and logged; what the cache holds afterwards is whole or absent, never
/// torn; and a later run stores what the failing one could not. The loader-level faults, with the
/// cache storing again in the same process, are in `AssetLoadingTests/DiskFaultTests`.
@Suite("assetpipe prefetch under disk faults", .serialized)
struct PrefetchDiskFaultTests {
    static let size = 200_000
    static let expected = TestContent.generatedBytes(0..<size)

    static let canMount = MountNamespace.canMountTmpfs
    static let mountSkip = Comment(rawValue: MountNamespace.skipReason)

    /// `/NAME/i.bin` for every name and count: `size` bytes of TestContent's pattern, fresh for an hour.
    func startOrigin(_ routes: [String: Int], gate: TestGate? = nil, gated: String? = nil) async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        for (name, count) in routes {
            for i in 0..<count {
                origin.setRoute("/\(name)/\(i).bin", .response(TestResponse(
                    status: 200, headers: [("Cache-Control", "max-age=3600")], body: .generated(length: Self.size),
                    gate: name == gated ? gate : nil)))
            }
        }
        return origin
    }

    func urls(_ origin: TestOrigin, _ name: String, _ count: Int) -> [String] {
        (0..<count).map { "\(origin.baseURL)/\(name)/\($0).bin" }
    }

    func writeList(_ urls: [String], in dir: URL, _ name: String) throws -> String {
        let list = dir.appendingPathComponent(name)
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: list)
        return list.path
    }

    func summary(_ report: String) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        return try #require(object["summary"] as? [String: Any])
    }

    func int(_ summary: [String: Any], _ field: String) -> Int { summary[field] as? Int ?? -1 }

    /// Opens the cache at `directory` and reads every URL's entry: whole (the origin's bytes) or
    /// absent, never anything else.
    func contents(of directory: String, _ urls: [String]) throws -> (whole: Int, absent: Int, torn: Int) {
        let cache = try DiskCache(directory: URL(fileURLWithPath: directory))
        defer { cache.close() }
        var whole = 0, absent = 0, torn = 0
        for url in urls {
            switch try cache.bytes(forKey: AssetLoader.defaultCacheKey(for: url)) {
            case nil: absent += 1
            case let bytes? where bytes == Self.expected: whole += 1
            default: torn += 1
            }
        }
        return (whole, absent, torn)
    }

    @Test func theCacheDirectoryRemovedWhileAPrefetchRuns() async throws {
        // Four early items are stored, four more are held at the origin while the directory is
        // removed, eight late ones come after: every one answered, the late ones stored again.
        let gate = TestGate()
        let origin = try await startOrigin(["early": 4, "held": 4, "late": 8], gate: gate, gated: "held")
        defer { Task { await origin.stop() } }
        let dir = try CLIFixtures.temporaryDirectory("prefetch-removed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path
        let all = urls(origin, "early", 4) + urls(origin, "held", 4) + urls(origin, "late", 8)
        let list = try writeList(all, in: dir, "urls.txt")
        let report = dir.appendingPathComponent("report.json").path
        let arguments = ["prefetch", list, "--cache-dir", cache, "--concurrency", "4", "--per-host", "4", "--report", report, "--retries", "0", "--quiet"]

        async let run = assetpipeAsync(arguments)
        await origin.waitForRequests(count: 8)  // the early four are done (one item per worker), the held four wait
        #expect(origin.requestCount(path: "/late/0.bin") == 0)
        try FileManager.default.removeItem(atPath: cache)
        gate.open()
        let first = try await run
        #expect(first.status == 0, "\(first.stderr)")
        let firstSummary = try summary(report)
        #expect(int(firstSummary, "failed") == 0 && int(firstSummary, "downloaded") == 16, "\(firstSummary)")

        let held = try contents(of: cache, urls(origin, "held", 4))
        let late = try contents(of: cache, urls(origin, "late", 8))
        let early = try contents(of: cache, urls(origin, "early", 4))
        #expect(held.torn == 0 && late.torn == 0 && early.torn == 0)
        #expect(early.absent == 4)  // removed with the directory
        #expect(late.whole == 8, "the cache stores again once the directory is gone: \(late)")
        #expect(held.absent == int(firstSummary, "storeFailures"), "\(held) \(firstSummary)")

        // A rerun downloads only what is not stored, and answers the rest from the cache.
        let again = try await assetpipeAsync(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        let second = try summary(report)
        #expect(int(second, "cached") == 8 + held.whole && int(second, "downloaded") == 4 + held.absent, "\(second)")
        #expect(int(second, "storeFailures") == 0)
        let verified = try await assetpipeAsync(["cache", "verify", "--cache-dir", cache, "--json"])
        #expect(try jsonObject(verified.stdout)["corrupt"] as? Int == 0)
    }

    @Test func aPrefetchUnderALimitOf64OpenFiles() async throws {
        let origin = try await startOrigin(["many": 60])
        defer { Task { await origin.stop() } }
        let dir = try CLIFixtures.temporaryDirectory("prefetch-nofile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path
        let all = urls(origin, "many", 60)
        let list = try writeList(all, in: dir, "urls.txt")
        let report = dir.appendingPathComponent("report.json").path
        let limited = ["sh", "-c", "ulimit -n 64 && exec \"$0\" \"$@\"", assetpipePath,
                       "prefetch", list, "--cache-dir", cache, "--concurrency", "16", "--per-host", "16", "--report", report, "--retries", "0", "--quiet"]

        let first = try await shellAsync(limited)
        #expect(first.status == 0, "\(first.stderr)")
        let firstSummary = try summary(report)
        #expect(int(firstSummary, "failed") == 0 && int(firstSummary, "downloaded") == 60, "\(firstSummary)")
        let stored = try contents(of: cache, all)
        #expect(stored.torn == 0 && stored.absent == int(firstSummary, "storeFailures"), "\(stored) \(firstSummary)")

        let again = try await shellAsync(limited)
        #expect(again.status == 0, "\(again.stderr)")
        let second = try summary(report)
        #expect(int(second, "failed") == 0 && int(second, "cached") == stored.whole && int(second, "downloaded") == stored.absent, "\(second)")
    }

    @Test(.enabled(if: canMount, mountSkip))
    func aReadOnlyCacheDirectory() async throws {
        let origin = try await startOrigin(["before": 3, "readonly": 5])
        defer { Task { await origin.stop() } }
        let dir = try CLIFixtures.temporaryDirectory("prefetch-readonly")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path
        let before = urls(origin, "before", 3)
        let readOnly = urls(origin, "readonly", 5)
        let report = dir.appendingPathComponent("report.json").path
        func prefetch(_ list: String) -> [String] {
            [assetpipePath, "prefetch", list, "--cache-dir", cache, "--concurrency", "4", "--report", report, "--retries", "0", "--quiet"]
        }
        let first = try await shellAsync(prefetch(try writeList(before, in: dir, "before.txt")))
        let firstSummary = try summary(report)
        #expect(first.status == 0 && int(firstSummary, "downloaded") == 3, "\(first.stderr)")

        // The same directory bound read-only over itself, in a mount namespace of the run's own
        // (root ignores permission bits: only a read-only mount refuses it).
        let both = try writeList(before + readOnly, in: dir, "both.txt")
        let underReadOnly = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                             "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$0\" prefetch \"$2\" --cache-dir \"$1\" --concurrency 4 --report \"$3\" --retries 0 --quiet",
                             assetpipePath, cache, both, report]
        let second = try await shellAsync(underReadOnly)
        #expect(second.status == 0, "\(second.stderr)")
        let secondSummary = try summary(report)
        #expect(int(secondSummary, "failed") == 0 && int(secondSummary, "cached") == 3, "\(secondSummary)")
        #expect(int(secondSummary, "downloaded") == 5 && int(secondSummary, "storeFailures") == 5, "\(secondSummary)")
        #expect(second.stderr.contains("5 not stored"), "\(second.stderr)")

        // A directory never used before, read-only from the start: it opens, nothing is stored.
        let empty = dir.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let fresh = try await shellAsync(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                          "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$0\" prefetch \"$2\" --cache-dir \"$1\" --concurrency 4 --report \"$3\" --retries 0 --quiet",
                                          assetpipePath, empty, both, report])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let freshSummary = try summary(report)
        #expect(int(freshSummary, "downloaded") == 8 && int(freshSummary, "storeFailures") == 8 && int(freshSummary, "failed") == 0, "\(freshSummary)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)

        let third = try await shellAsync(prefetch(both))
        #expect(third.status == 0, "\(third.stderr)")
        let thirdSummary = try summary(report)
        #expect(int(thirdSummary, "cached") == 3 && int(thirdSummary, "downloaded") == 5 && int(thirdSummary, "storeFailures") == 0, "\(thirdSummary)")
        let stored = try contents(of: cache, before + readOnly)
        #expect(stored.whole == 8 && stored.torn == 0)
    }

    @Test(.enabled(if: canMount, mountSkip))
    func aFullDisk() async throws {
        let origin = try await startOrigin(["full": 10])
        defer { Task { await origin.stop() } }
        let dir = try CLIFixtures.temporaryDirectory("prefetch-full")
        defer { try? FileManager.default.removeItem(at: dir) }
        let mount = dir.appendingPathComponent("mnt").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let all = urls(origin, "full", 10)
        let list = try writeList(all, in: dir, "urls.txt")
        // A 4 MB tmpfs, 3.7 MB of it taken: the first run finds room for one or two of ten 200 KB
        // bodies. The filler goes, a second run stores the rest; the cache is copied out before the
        // namespace (and its tmpfs) ends.
        let script = """
            set -e
            mount -t tmpfs -o size=4m tmpfs "$1"
            head -c 3700000 /dev/zero > "$1/filler" || true
            "$0" prefetch "$2" --cache-dir "$1/cache" --concurrency 4 --report "$3/first.json" --retries 0 --quiet 2> "$3/first.log"
            cp -a "$1/cache" "$3/after-first"
            rm "$1/filler"
            "$0" prefetch "$2" --cache-dir "$1/cache" --concurrency 4 --report "$3/second.json" --retries 0 --quiet 2> "$3/second.log"
            cp -a "$1/cache" "$3/after-second"
            """
        let run = try await shellAsync(["unshare", "-m", "--propagation", "private", "sh", "-c", script, assetpipePath, mount, list, dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let log = (try? String(contentsOfFile: dir.path + "/first.log", encoding: .utf8)) ?? ""

        let first = try summary(dir.path + "/first.json")
        #expect(int(first, "failed") == 0 && int(first, "downloaded") == 10, "\(first) \(log)")
        #expect(int(first, "storeFailures") >= 8, "\(first)")
        #expect(log.contains("not stored"), "\(log)")
        let afterFirst = try contents(of: dir.path + "/after-first", all)
        #expect(afterFirst.torn == 0 && afterFirst.absent == int(first, "storeFailures"), "\(afterFirst)")

        let second = try summary(dir.path + "/second.json")
        #expect(int(second, "failed") == 0 && int(second, "storeFailures") == 0, "\(second)")
        #expect(int(second, "cached") == afterFirst.whole && int(second, "downloaded") == afterFirst.absent, "\(second)")
        let afterSecond = try contents(of: dir.path + "/after-second", all)
        #expect(afterSecond.whole == 10 && afterSecond.torn == 0)
    }
}
