import AssetStorage
import Foundation
import Testing

/// Runs the built `assetpipe` binary.
func assetpipe(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
    let process = Process()
    process.executableURL = dir.appendingPathComponent("assetpipe")
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite("assetpipe cache")
struct CacheCommandTests {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-cli-\(UUID().uuidString)")
        let cache = try DiskCache(directory: dir)
        for i in 0..<10 {
            try cache.store([UInt8](repeating: UInt8(i), count: 100 * (i + 1)), forKey: "k\(i)", info: .init(kind: i < 4 ? .image : .lottie))
        }
        cache.close()
    }

    @Test func statsCountsEntriesAndBytes() throws {
        let result = try assetpipe(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(result.status == 0)
        let json = try jsonObject(result.stdout)
        #expect(json["entries"] as? Int == 10)
        #expect(json["bytes"] as? Int == 5500)
        let perKind = try #require(json["perKind"] as? [String: [String: Int]])
        #expect(perKind["image"]?["entries"] == 4)
        #expect(perKind["image"]?["bytes"] == 1000)
    }

    @Test func theDefaultDirectoryComesFromTheEnvironment() throws {
        var env = ProcessInfo.processInfo.environment
        env["ASSETPIPE_CACHE_DIR"] = dir.path
        let result = try assetpipe(["cache", "stats", "--json"], environment: env)
        #expect(try jsonObject(result.stdout)["entries"] as? Int == 10)
        env["ASSETPIPE_CACHE_DIR"] = nil
        env["XDG_CACHE_HOME"] = dir.path + "/xdg"
        let xdg = try assetpipe(["cache", "stats", "--json"], environment: env)
        #expect(try jsonObject(xdg.stdout)["directory"] as? String == dir.path + "/xdg/assetpipe")
    }

    @Test func showPrintsOneEntrysMetadataByKeyOrHash() throws {
        let json = try assetpipe(["cache", "show", "k3", "--cache-dir", dir.path, "--json"])
        #expect(json.status == 0)
        let object = try jsonObject(json.stdout)
        #expect(object["key"] as? String == "k3")
        #expect(object["kind"] as? String == "image")
        #expect(object["size"] as? Int == 400)
        #expect((object["checksum"] as? String)?.hasPrefix("xxh128:") == true)
        let hash = CacheKeyHash.fileName(for: "k7")
        let text = try assetpipe(["cache", "show", hash, "--cache-dir", dir.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("key           k7"))
        #expect(text.stdout.contains("size          800"))
        #expect(text.stdout.contains("hash          \(hash)"))
        let missing = try assetpipe(["cache", "show", "https://example.org/none", "--cache-dir", dir.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no entry for https://example.org/none"))
    }

    @Test func verifyReportsAndRemovesCorruptEntries() throws {
        // k5's data has a flipped byte; k6's file is cut short (no footer: removed when the cache opens).
        let hash = CacheKeyHash.fileName(for: "k5")
        let data = dir.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent("\(hash).entry")
        var bytes = try Data(contentsOf: data)
        bytes[3] ^= 0x55
        try bytes.write(to: data)
        let cutHash = CacheKeyHash.fileName(for: "k6")
        let cut = dir.appendingPathComponent(String(cutHash.prefix(2))).appendingPathComponent("\(cutHash).entry")
        try Data(try Data(contentsOf: cut).prefix(50)).write(to: cut)

        let result = try assetpipe(["cache", "verify", "--cache-dir", dir.path, "--json"])
        #expect(result.status == 1)
        let json = try jsonObject(result.stdout)
        #expect(json["checked"] as? Int == 10)
        #expect(json["corrupt"] as? Int == 2)
        #expect(json["removed"] as? Int == 2)
        let again = try assetpipe(["cache", "verify", "--cache-dir", dir.path, "--json"])
        #expect(again.status == 0)
        #expect(try jsonObject(again.stdout)["checked"] as? Int == 8)
        #expect(try jsonObject(again.stdout)["corrupt"] as? Int == 0)
    }

    @Test func pruneAndClear() throws {
        let pruned = try assetpipe(["cache", "prune", "--cache-dir", dir.path, "--max-count", "6", "--json"])
        #expect(pruned.status == 0)
        #expect(try jsonObject(pruned.stdout)["removed"] as? Int == 4)
        let bySize = try assetpipe(["cache", "prune", "--cache-dir", dir.path, "--max-size", "2000", "--json"])
        #expect(try jsonObject(bySize.stdout)["bytes"] as? Int ?? .max <= 2000)
        let cleared = try assetpipe(["cache", "clear", "--cache-dir", dir.path, "--json"])
        #expect(cleared.status == 0)
        let stats = try assetpipe(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(try jsonObject(stats.stdout)["entries"] as? Int == 0)
    }

    @Test func badUsageExitsTwo() throws {
        #expect(try assetpipe(["cache", "prune", "--cache-dir", dir.path]).status == 2)
        #expect(try assetpipe(["cache", "frobnicate"]).status == 2)
        #expect(try assetpipe(["cache", "prune", "--max-count", "many"]).status == 2)
        let unusable = try assetpipe(["cache", "stats", "--cache-dir", "/proc/version/x"])
        #expect(unusable.status == 1)
        #expect(unusable.stderr.contains("assetpipe:"))
    }
}

/// Runs the built `assetpipe` binary from async code: the wait happens on a thread of its own,
/// so that servers in this process (whose handlers run on the cooperative pool) keep answering.
func assetpipeAsync(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try assetpipe(arguments) })
        }.start()
    }
}
