import AssetStorage
import Foundation
import Testing

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

    @Test func statsCountsEntriesAndBytes() async throws {
        let result = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(result.status == 0)
        let json = try jsonObject(result.stdout)
        #expect(json["entries"] as? Int == 10)
        #expect(json["bytes"] as? Int == 5500)
        let perKind = try #require(json["perKind"] as? [String: [String: Int]])
        #expect(perKind["image"]?["entries"] == 4)
        #expect(perKind["image"]?["bytes"] == 1000)
    }

    @Test func theDefaultDirectoryComesFromTheEnvironment() async throws {
        var env = ProcessInfo.processInfo.environment
        env["ASSETPIPE_CACHE_DIR"] = dir.path
        let result = try await assetpipeAsync(["cache", "stats", "--json"], environment: env)
        #expect(try jsonObject(result.stdout)["entries"] as? Int == 10)
        env["ASSETPIPE_CACHE_DIR"] = nil
        env["XDG_CACHE_HOME"] = dir.path + "/xdg"
        let xdg = try await assetpipeAsync(["cache", "stats", "--json"], environment: env)
        #expect(try jsonObject(xdg.stdout)["directory"] as? String == dir.path + "/xdg/assetpipe")
    }

    @Test func showPrintsOneEntrysMetadataByKeyOrHash() async throws {
        let json = try await assetpipeAsync(["cache", "show", "k3", "--cache-dir", dir.path, "--json"])
        #expect(json.status == 0)
        let object = try jsonObject(json.stdout)
        #expect(object["key"] as? String == "k3")
        #expect(object["kind"] as? String == "image")
        #expect(object["size"] as? Int == 400)
        #expect((object["checksum"] as? String)?.hasPrefix("xxh128:") == true)
        let hash = CacheKeyHash.fileName(for: "k7")
        let text = try await assetpipeAsync(["cache", "show", hash, "--cache-dir", dir.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("key           k7"))
        #expect(text.stdout.contains("size          800"))
        #expect(text.stdout.contains("hash          \(hash)"))
        let missing = try await assetpipeAsync(["cache", "show", "https://example.org/none", "--cache-dir", dir.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no entry for https://example.org/none"))
    }

    @Test func showKeepsLongHeaderNamesApartFromTheirValues() async throws {
        let cache = try DiskCache(directory: dir)
        let http = CacheMetadata.HTTPInfo(
            status: 200, headers: [("Content-Type", "image/png"), ("Access-Control-Allow-Origin", "*")],
            requestTime: Date(), responseTime: Date())
        try cache.store([1, 2, 3], forKey: "with-headers", info: .init(kind: .image, contentType: "image/png", http: http))
        cache.close()
        let text = try await assetpipeAsync(["cache", "show", "with-headers", "--cache-dir", dir.path])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        // every value starts in one column, past the longest header name
        let keyLine = try #require(lines.first { $0.hasPrefix("key ") })
        let column = keyLine.count - "with-headers".count
        #expect(keyLine.hasSuffix(" with-headers") && column > "  Access-Control-Allow-Origin".count)
        func value(_ label: String) -> String? {
            lines.first { $0.hasPrefix(label + " ") }.map { String($0.dropFirst(column)) }
        }
        #expect(value("  Access-Control-Allow-Origin") == "*")
        #expect(value("  Content-Type") == "image/png")
        #expect(value("kind") == "image")
        #expect(value("size")?.hasPrefix("3 ") == true)
    }

    @Test func verifyReportsAndRemovesCorruptEntries() async throws {
        // k5's data has a flipped byte; k6's file is cut short (no footer: removed when the cache opens).
        let hash = CacheKeyHash.fileName(for: "k5")
        let data = dir.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent("\(hash).entry")
        var bytes = try Data(contentsOf: data)
        bytes[3] ^= 0x55
        try bytes.write(to: data)
        let cutHash = CacheKeyHash.fileName(for: "k6")
        let cut = dir.appendingPathComponent(String(cutHash.prefix(2))).appendingPathComponent("\(cutHash).entry")
        try Data(try Data(contentsOf: cut).prefix(50)).write(to: cut)

        let result = try await assetpipeAsync(["cache", "verify", "--cache-dir", dir.path, "--json"])
        #expect(result.status == 1)
        let json = try jsonObject(result.stdout)
        #expect(json["checked"] as? Int == 10)
        #expect(json["corrupt"] as? Int == 2)
        #expect(json["removed"] as? Int == 2)
        let again = try await assetpipeAsync(["cache", "verify", "--cache-dir", dir.path, "--json"])
        #expect(again.status == 0)
        #expect(try jsonObject(again.stdout)["checked"] as? Int == 8)
        #expect(try jsonObject(again.stdout)["corrupt"] as? Int == 0)
    }

    @Test func pruneAndClear() async throws {
        let pruned = try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path, "--max-count", "6", "--json"])
        #expect(pruned.status == 0)
        #expect(try jsonObject(pruned.stdout)["removed"] as? Int == 4)
        let bySize = try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path, "--max-size", "2000", "--json"])
        #expect(try jsonObject(bySize.stdout)["bytes"] as? Int ?? .max <= 2000)
        let cleared = try await assetpipeAsync(["cache", "clear", "--cache-dir", dir.path, "--json"])
        #expect(cleared.status == 0)
        let stats = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(try jsonObject(stats.stdout)["entries"] as? Int == 0)
    }

    static let chunk = 1 << 20  // the chunk size the command opens `chunks/` with

    /// A chunk store in `chunks/` with three resources of three chunks (1 MiB, 1 MiB, 1 KiB).
    func fillChunks() throws -> ChunkStore {
        let store = try ChunkStore(configuration: .init(directory: dir.appendingPathComponent("chunks"), chunkSize: Self.chunk))
        for r in 0..<3 {
            let record = try store.replaceResource(forKey: "v\(r)", info: .init(totalLength: Int64(2 * Self.chunk + 1024)))
            for index in 0..<3 {
                let count = index < 2 ? Self.chunk : 1024
                try store.writeChunk(forKey: "v\(r)", generation: record.generation, index: index, bytes: [UInt8](repeating: UInt8(r * 3 + index), count: count))
            }
        }
        return store
    }

    @Test func verifyAndPruneCoverTheChunks() async throws {
        let store = try fillChunks()
        let record = try #require(try store.record(forKey: "v1"))
        store.close()
        let path = dir.appendingPathComponent("chunks/\(CacheKeyHash.fileName(for: "v1"))/\(String(format: "%016llx", record.generation))-2.chunk")
        var bytes = try Data(contentsOf: path)
        bytes[7] ^= 1
        try bytes.write(to: path)

        let verify = try await assetpipeAsync(["cache", "verify", "--cache-dir", dir.path, "--json"])
        #expect(verify.status == 1, "\(verify.stdout)")
        let chunks = try #require(try jsonObject(verify.stdout)["chunks"] as? [String: Any])
        #expect(chunks["checked"] as? Int == 9)
        #expect(chunks["corrupt"] as? Int == 1)
        #expect(chunks["removed"] as? Int == 1)
        #expect(chunks["problems"] as? [String] == ["v1: chunk 2: checksum mismatch"])
        #expect(try jsonObject(verify.stdout)["corrupt"] as? Int == 0)  // the entries are whole
        let again = try await assetpipeAsync(["cache", "verify", "--cache-dir", dir.path])
        #expect(again.status == 0, "\(again.stdout)")
        #expect(again.stdout.contains("chunks: checked 8 in 3 resources, corrupt 0, removed 0"))

        let pruned = try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path, "--max-chunk-bytes", "\(3 * Self.chunk)", "--json"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        let after = try #require(try jsonObject(pruned.stdout)["chunks"] as? [String: Int])
        #expect(after["removedChunks"] ?? 0 >= 3)
        #expect(after["bytes"] ?? .max <= 3 * Self.chunk)
        #expect(try jsonObject(pruned.stdout)["removed"] as? Int == 0)  // no entry limit was given
        let byAge = try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path, "--max-age", "0", "--json"])
        #expect(try #require(try jsonObject(byAge.stdout)["chunks"] as? [String: Int])["removedResources"] == 3)
        #expect(try jsonObject(byAge.stdout)["entries"] as? Int == 0)
    }

    @Test func badUsageExitsTwo() async throws {
        #expect(try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path]).status == 2)
        #expect(try await assetpipeAsync(["cache", "prune", "--cache-dir", dir.path, "--max-chunk-bytes", "-1"]).status == 2)
        #expect(try await assetpipeAsync(["cache", "frobnicate"]).status == 2)
        #expect(try await assetpipeAsync(["cache", "prune", "--max-count", "many"]).status == 2)
        let unusable = try await assetpipeAsync(["cache", "stats", "--cache-dir", "/proc/version/x"])
        #expect(unusable.status == 1)
        #expect(unusable.stderr.contains("assetpipe:"))
    }
}
