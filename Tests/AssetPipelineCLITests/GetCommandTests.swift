import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe get")
struct GetCommandTests {
    func temporaryDirectory() throws -> URL { try CLIFixtures.temporaryDirectory("get") }

    @Test func downloadsThenRevalidatesThenServesFromCache() async throws {
        let origin = try await TestOrigin.start()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        origin.setRoute("/img.png", .resource(TestResource(
            content: .bytes(body), eTag: "\"v1\"", headers: [("Cache-Control", "max-age=0"), ("Content-Type", "image/png")])))
        let out = dir.appendingPathComponent("out.png").path

        let first = try await assetpipeAsync(["get", origin.url("/img.png"), "--cache-dir", dir.path, "--kind", "image", "--json", "-o", out])
        #expect(first.status == 0)
        let firstJSON = try jsonObject(first.stdout)
        #expect(firstJSON["outcome"] as? String == "downloaded")
        #expect(firstJSON["status"] as? Int == 200)
        #expect(firstJSON["bytes"] as? Int == 70_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(body))

        // max-age=0: the second load revalidates; the origin answers 304 and sends no body.
        let second = try await assetpipeAsync(["get", origin.url("/img.png"), "--cache-dir", dir.path, "--json", "-o", out + "2"])
        #expect(try jsonObject(second.stdout)["outcome"] as? String == "revalidated")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "2")) == Data(body))
        #expect(origin.requestCount(path: "/img.png") == 2)
        #expect(origin.requests(path: "/img.png").last?.header("If-None-Match") == "\"v1\"")

        // cacheOnly makes no request.
        let third = try await assetpipeAsync(["get", origin.url("/img.png"), "--cache-dir", dir.path, "--strategy", "cacheOnly", "--json"])
        #expect(third.status == 0)
        #expect(origin.requestCount(path: "/img.png") == 2)
        await origin.stop()
    }

    @Test func freshResponsesMakeNoRequest() async throws {
        let origin = try await TestOrigin.start()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/a.json", .resource(TestResource(content: .bytes(Array("{}".utf8)), headers: [("Cache-Control", "max-age=3600")])))
        _ = try await assetpipeAsync(["get", origin.url("/a.json"), "--cache-dir", dir.path, "--json"])
        let again = try await assetpipeAsync(["get", origin.url("/a.json"), "--cache-dir", dir.path, "--json"])
        #expect(try jsonObject(again.stdout)["outcome"] as? String == "cached")
        #expect(origin.requestCount(path: "/a.json") == 1)
        await origin.stop()
    }

    @Test func failuresAreTypedAndExitOne() async throws {
        let origin = try await TestOrigin.start()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/gone", .response(TestResponse(status: 404)))
        let missing = try await assetpipeAsync(["get", origin.url("/gone"), "--cache-dir", dir.path, "--json"])
        #expect(missing.status == 1)
        let error = try #require(try jsonObject(missing.stdout)["error"] as? [String: Any])
        #expect((error["code"] as? String)?.contains("404") == true)
        #expect(origin.requestCount(path: "/gone") == 1)  // a 404 is not retried

        let scheme = try await assetpipeAsync(["get", "gopher://example.org/x", "--cache-dir", dir.path, "--json"])
        #expect(scheme.status == 1)
        let notCached = try await assetpipeAsync(["get", origin.url("/never"), "--cache-dir", dir.path, "--strategy", "cacheOnly", "--json"])
        #expect(notCached.status == 1)
        #expect(origin.requestCount(path: "/never") == 0)

        #expect(try await assetpipeAsync(["get", origin.url("/x"), "--strategy", "sometimes"]).status == 2)
        #expect(try await assetpipeAsync(["get", origin.url("/x"), "--kind", "audio"]).status == 2)
        await origin.stop()
    }
}
