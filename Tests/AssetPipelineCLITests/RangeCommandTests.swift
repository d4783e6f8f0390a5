import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe range")
struct RangeCommandTests {
    func temporaryDirectory() throws -> URL { try CLIFixtures.temporaryDirectory("range") }

    @Test func readsThenServesTheSameRangeFromTheCache() async throws {
        let origin = try await TestOrigin.start()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 ^ ($0 >> 11)) }
        origin.setRoute("/v.mp4", .resource(TestResource(content: .bytes(body), eTag: "\"v1\"", headers: [("Cache-Control", "max-age=3600")])))
        let out = dir.appendingPathComponent("part.bin").path
        let args = ["range", origin.url("/v.mp4"), "--start", "1000000", "--length", "1500000", "--cache-dir", dir.path, "--json", "-o", out]

        let first = try await assetpipeAsync(args)
        #expect(first.status == 0, "\(first.stderr)")
        let json = try jsonObject(first.stdout)
        #expect(json["bytes"] as? Int == 1_500_000)
        #expect(json["bytesFromCache"] as? Int == 0)
        #expect(json["bytesFromOrigin"] as? Int == 3_000_000)  // chunks 0-2, whole (the last is short)
        #expect(json["originRequests"] as? Int == 1)
        #expect(json["totalLength"] as? Int == 3_000_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(body[1_000_000..<2_500_000]))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("chunks").path))

        let again = try await assetpipeAsync(["range", origin.url("/v.mp4"), "--start", "1000000", "--end", "2500000", "--cache-dir", dir.path, "--json"])
        let cached = try jsonObject(again.stdout)
        #expect(cached["bytesFromCache"] as? Int == 1_500_000)
        #expect(cached["bytesFromOrigin"] as? Int == 0)
        #expect(cached["originRequests"] as? Int == 0)
        #expect(origin.requestCount(path: "/v.mp4") == 1)

        // past the end is clipped
        let tail = dir.appendingPathComponent("tail.bin").path
        let clipped = try await assetpipeAsync(["range", origin.url("/v.mp4"), "--start", "2999990", "--length", "100", "--cache-dir", dir.path, "-o", tail])
        #expect(clipped.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tail)) == Data(body[2_999_990...]))
        #expect(origin.requestCount(path: "/v.mp4") == 1)

        // `cache stats` counts the chunks, `cache clear` removes them.
        let stats = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
        let chunks = try #require(try jsonObject(stats.stdout)["chunks"] as? [String: Any])
        #expect(chunks["resources"] as? Int == 1)
        #expect(chunks["bytes"] as? Int == 3_000_000)
        let clear = try await assetpipeAsync(["cache", "clear", "--cache-dir", dir.path, "--json"])
        #expect(try jsonObject(clear.stdout)["removedChunkBytes"] as? Int == 3_000_000)
        let after = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect((try jsonObject(after.stdout)["chunks"] as? [String: Any])?["bytes"] as? Int == 0)
        await origin.stop()
    }

    @Test func failuresAreJSONAndExitOneAndBadFlagsExitTwo() async throws {
        let origin = try await TestOrigin.start()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/short.webm", .resource(TestResource(content: .bytes([UInt8](repeating: 1, count: 500)), eTag: "\"s\"")))
        let past = try await assetpipeAsync(["range", origin.url("/short.webm"), "--start", "1000", "--length", "10", "--cache-dir", dir.path, "--json"])
        #expect(past.status == 1)
        let error = try #require(try jsonObject(past.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "rangeNotSatisfiable")
        #expect(error["totalLength"] as? Int == 500)

        origin.setRoute("/gone", .response(TestResponse(status: 404)))
        let gone = try await assetpipeAsync(["range", origin.url("/gone"), "--start", "0", "--length", "10", "--cache-dir", dir.path, "--json"])
        #expect(gone.status == 1)
        #expect((try jsonObject(gone.stdout)["error"] as? [String: Any])?["code"] as? String == "http404")

        #expect(try await assetpipeAsync(["range", origin.url("/x"), "--start", "0"]).status == 2)
        #expect(try await assetpipeAsync(["range", origin.url("/x"), "--start", "0", "--length", "1", "--end", "2"]).status == 2)
        #expect(try await assetpipeAsync(["range", origin.url("/x"), "--start", "-5", "--length", "1"]).status == 2)
        #expect(try await assetpipeAsync(["range", origin.url("/x"), "--start", "9", "--end", "2"]).status == 2)
        await origin.stop()
    }
}
