import AssetLoading
import AssetTestSupport
@testable import AssetServer
import Foundation
import NIOHTTP1
import Testing

@Suite("Prefetch jobs, cache stats and the admin endpoints")
struct AdminAndJobTests {
    static let token = "0123456789abcdef-test-token"

    @Test func adminEndpointsNeedTheToken() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.adminToken = Self.token }) { harness in
            harness.origin.setRoute("/p.txt", .resource(TestResource(content: .bytes(Array("purge me".utf8)), eTag: "\"p\"", headers: freshForAnHour)))
            _ = try await harness.send(harness.endpoint("asset", originPath: "/p.txt"))
            let purge = "/v1/cache/purge?url=\(ServerHarness.encode(harness.origin.url("/p.txt")))"
            let unauthenticated = try await harness.send(purge, method: .POST)
            #expect(unauthenticated.status == 401)
            #expect(unauthenticated.header("WWW-Authenticate") == "Bearer")
            let wrong = try await harness.send(purge, method: .POST, headers: [("Authorization", "Bearer nope")])
            #expect(wrong.status == 401)
            let prefix = try await harness.send(purge, method: .POST, headers: [("Authorization", "Bearer " + Self.token.dropLast())])
            #expect(prefix.status == 401)
            let get = try await harness.send(purge, headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(get.status == 405)
            let purged = try await harness.send(purge, method: .POST, headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(purged.status == 200)
            #expect(try purged.json["removedFromDisk"] as? Bool == true)
            // purged from memory and disk: the next request goes to the origin
            let again = try await harness.send(harness.endpoint("asset", originPath: "/p.txt"))
            #expect(again.header("X-Assetpipe-Cache") == "miss")
            #expect(harness.origin.requestCount(path: "/p.txt") == 2)

            let prune = try await harness.send("/v1/cache/prune?maxCount=1", method: .POST, headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(prune.status == 200)
            #expect(try prune.json["removedEntries"] as? Int == 0)
        }
    }

    @Test func adminEndpointsAreOffWithoutAToken() async throws {
        try await ServerHarness.with { harness in
            for target in ["/v1/cache/prune", "/v1/cache/purge?url=http%3A%2F%2Fx%2F"] {
                let answer = try await harness.send(target, method: .POST, headers: [("Authorization", "Bearer anything")])
                #expect(answer.status == 403)
                #expect(answer.errorCode == "admin_disabled")
            }
        }
    }

    @Test func statsCountEntriesByKind() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/s.png", .resource(TestResource(content: .bytes(try ServerHarness.fixture("png/pngsuite/basn6a08.png")), headers: freshForAnHour)))
            _ = try await harness.send(harness.endpoint("asset", originPath: "/s.png"))
            let stats = try await harness.send("/v1/cache/stats")
            #expect(stats.status == 200)
            let json = try stats.json
            #expect(json["entries"] as? Int == 1)
            let perKind = try #require(json["perKind"] as? [String: [String: Any]])
            #expect(perKind["image"]?["entries"] as? Int == 1)
            #expect(json["chunks"] is [String: Any])
            #expect(json["memory"] is [String: Any])
        }
    }

    @Test func prefetchJobRunsAListAndReportsIt() async throws {
        try await ServerHarness.with { harness in
            for index in 0..<20 {
                harness.origin.setRoute("/f\(index).bin", .resource(TestResource(content: .generated(length: 1_000 + index), headers: freshForAnHour)))
            }
            harness.origin.setRoute("/missing.bin", .response(TestResponse(status: 404)))
            var list = (0..<20).map { harness.origin.url("/f\($0).bin") }.joined(separator: "\n")
            list += "\n# a comment\n\n" + harness.origin.url("/missing.bin") + "\nnot a url\n"
            let created = try await harness.send("/v1/prefetch", method: .POST, headers: [("Content-Type", "text/plain")], body: Array(list.utf8))
            #expect(created.status == 202)
            let id = try #require(try created.json["id"] as? String)
            #expect(created.header("Location") == "/v1/prefetch/\(id)")
            #expect(try created.json["items"] as? Int == 22)
            let report = try await Self.waitForEnd(harness, id: id)
            #expect(report["state"] as? String == "done")
            let summary = try #require(report["summary"] as? [String: Any])
            #expect(summary["total"] as? Int == 22)
            #expect(summary["downloaded"] as? Int == 20)
            #expect(summary["failed"] as? Int == 2)
            let items = try #require(report["items"] as? [[String: Any]])
            #expect(items.count == 22)
            #expect(Set(items.compactMap { $0["outcome"] as? String }) == ["downloaded", "failed"])
            // the assets are cached: the asset endpoint answers without the origin
            let cached = try await harness.send(harness.endpoint("asset", originPath: "/f3.bin"))
            #expect(cached.status == 200)
            #expect(cached.body == TestContent.generatedBytes(0..<1_003))
            #expect(harness.origin.requestCount(path: "/f3.bin") == 1)

            let json = "[\"\(harness.origin.url("/f1.bin"))\", {\"url\": \"\(harness.origin.url("/f2.bin"))\", \"kind\": \"raw\"}]"
            let second = try await harness.send("/v1/prefetch", method: .POST, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
            #expect(second.status == 202)
            let secondReport = try await Self.waitForEnd(harness, id: try #require(try second.json["id"] as? String))
            #expect((secondReport["summary"] as? [String: Any])?["cached"] as? Int == 2)

            let removed = try await harness.send("/v1/prefetch/\(id)", method: .DELETE)
            #expect(removed.status == 200)
            let gone = try await harness.send("/v1/prefetch/\(id)")
            #expect(gone.status == 404)
        }
    }

    @Test func prefetchJobsCanBeCancelledAndAreBounded() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.maxPrefetchJobs = 1
            configuration.prefetch.concurrency = 1
        }) { harness in
            let gate = TestGate()
            harness.origin.setRoute("/slow.bin", .response(TestResponse(body: .text("slow"), gate: gate)))
            let list = (0..<5).map { harness.origin.url("/slow.bin?\($0)") }.joined(separator: "\n")
            let created = try await harness.send("/v1/prefetch", method: .POST, body: Array(list.utf8))
            #expect(created.status == 202)
            let id = try #require(try created.json["id"] as? String)
            let refused = try await harness.send("/v1/prefetch", method: .POST, body: Array(list.utf8))
            #expect(refused.status == 429)
            #expect(refused.errorCode == "too_many_jobs")
            let running = try await harness.send("/v1/prefetch/\(id)")
            #expect(try running.json["state"] as? String == "running")
            let cancelled = try await harness.send("/v1/prefetch/\(id)", method: .DELETE)
            #expect(try cancelled.json["state"] as? String == "cancelling")
            let report = try await Self.waitForEnd(harness, id: id)
            #expect(report["state"] as? String == "cancelled")
            #expect((report["summary"] as? [String: Any])?["interrupted"] as? Bool == true)
            gate.open()
            // a finished job makes room for a new one
            let next = try await harness.send("/v1/prefetch", method: .POST, body: Array(harness.origin.url("/slow.bin").utf8))
            #expect(next.status == 202)
        }
    }

    /// A video is prefetched whole into the disk cache by default; `videoPrefix` fetches its first
    /// bytes into the chunk store instead.
    @Test func prefetchJobsPutVideosWholeOrAsAPrefix() async throws {
        try await ServerHarness.with { harness in
            let video = TestContent.generatedBytes(0..<(3 << 20))
            harness.origin.setRoute("/whole.mp4", .resource(TestResource(content: .bytes(video), eTag: "\"w\"", headers: freshForAnHour)))
            harness.origin.setRoute("/prefix.mp4", .resource(TestResource(content: .bytes(video), eTag: "\"p\"", headers: freshForAnHour)))
            for (path, query, expected) in [("/whole.mp4", "", video.count), ("/prefix.mp4", "?videoPrefix=1048576", 1 << 20)] {
                let created = try await harness.send(
                    "/v1/prefetch" + query, method: .POST, headers: [("Content-Type", "text/plain")], body: Array(harness.origin.url(path).utf8))
                #expect(created.status == 202)
                let report = try await Self.waitForEnd(harness, id: try #require(try created.json["id"] as? String))
                let item = try #require((report["items"] as? [[String: Any]])?.first)
                #expect(item["bytes"] as? Int == expected, "\(path)")
                let key = AssetLoader.defaultCacheKey(for: harness.origin.url(path))
                let whole = harness.manager.diskCache.contains(key: key)
                let chunks = try harness.manager.chunkStore.record(forKey: key)?.chunks.count ?? 0
                let prefixChunks = (1 << 20) / harness.manager.configuration.chunks.chunkSize
                #expect(query.isEmpty ? whole && chunks == 0 : !whole && chunks == prefixChunks, "\(path): whole \(whole), \(chunks) chunks")
            }
            let bad = try await harness.send("/v1/prefetch?videoPrefix=0", method: .POST, body: Array(harness.origin.url("/whole.mp4").utf8))
            #expect(bad.status == 400)
        }
    }

    @Test func prefetchRefusesBadLists() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.maxBodyBytes = 1_000
            configuration.maxPrefetchItems = 3
        }) { harness in
            let cases: [(body: String, status: Int)] = [
                ("", 400), ("# only a comment\n", 400), ("[1, 2]", 400), ("[\"a\"", 400),
                ("a\nb\nc\nd\n", 400), (String(repeating: "x", count: 2_000), 413),
            ]
            for item in cases {
                let answer = try await harness.send("/v1/prefetch", method: .POST, body: Array(item.body.utf8))
                #expect(answer.status == item.status, "\(item.body.prefix(20))")
            }
            let get = try await harness.send("/v1/prefetch")
            #expect(get.status == 405)
        }
    }

    /// Waits until a job has ended (its run is over and its report written) and returns the report
    /// as the service answers it.
    static func waitForEnd(_ harness: ServerHarness, id: String) async throws -> [String: Any] {
        let job = try #require(harness.server.responder.context.jobs.job(id: id), "no job \(id)")
        await job.wait()
        let answer = try await harness.send("/v1/prefetch/\(id)")
        #expect(answer.status == 200)
        let json = try answer.json
        #expect(json["state"] as? String != "running")
        return json
    }
}
