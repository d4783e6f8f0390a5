@testable import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
@testable import AssetServer
import Foundation
import NIOHTTP1
import NIOCore
import Testing

@Suite("Load, slow clients, metrics and shutdown")
struct ServerRobustnessTests {
    @Test(.timeLimit(.minutes(3)))
    func aBurstForOneColdAssetMakesOneOriginRequest() async throws {
        // 1,000 sockets and their buffers: not beside a test that measures the process's peak memory
        try await ProcessMemoryLock.shared.exclusive { try await burst() }
    }

    func burst() async throws {
        try await ServerHarness.with { harness in
            let gate = TestGate()
            let body = TestContent.generatedBytes(0..<4_000)
            harness.origin.setRoute("/cold.bin", .response(TestResponse(headers: freshForAnHour, body: .bytes(body), gate: gate)))
            let target = harness.endpoint("asset", originPath: "/cold.bin")
            try await withThrowingTaskGroup(of: ServerHarness.Answer.self) { group in
                for _ in 0..<500 { group.addTask { try await harness.send(target) } }
                // every request is in (and waiting on the one origin request) before it answers
                await harness.origin.waitForRequests(path: "/cold.bin", count: 1)
                await harness.manager.loader.inFlight.waitForWaiters(500)
                gate.open()
                var answers = 0
                for try await answer in group {
                    #expect(answer.status == 200)
                    #expect(answer.body == body)
                    answers += 1
                }
                #expect(answers == 500)
            }
            #expect(harness.origin.requestCount(path: "/cold.bin") == 1)
        }
    }

    @Test func slowClientsDoNotHoldTheServer() async throws {
        try await ProcessMemoryLock.shared.exclusive { try await slowClients() }
    }

    func slowClients() async throws {
        try await ServerHarness.with({ configuration, _ in
            configuration.idleTimeout = .seconds(3)
            configuration.writeTimeout = .seconds(3)
            configuration.memoryAssetLimit = 1_000
        }) { harness in
            harness.origin.setRoute("/big.bin", .resource(TestResource(content: .generated(length: 8 << 20), headers: freshForAnHour)))
            harness.origin.setRoute("/small.txt", .resource(TestResource(content: .bytes(Array("ok".utf8)), headers: freshForAnHour)))
            // the 8 MiB go to the disk cache through the loader, not through this server: a fetch
            // by the test's client would itself be held to the 3 s timeouts (and was cut off when
            // the test run's other suites kept the client's event loop busy)
            let big = try #require(URL(string: harness.origin.url("/big.bin")))
            _ = try await harness.server.responder.context.load(AssetRequest(url: big, kind: .raw))
            // a client that never finishes its request head
            let silent = try RawConnection(port: harness.port)
            try silent.send("GET /v1/asset?url=x HTTP/1.1\r\nHost: a\r\n")
            // a client that asks for 8 MiB and does not read
            let sluggish = try RawConnection(port: harness.port, receiveBuffer: 4_096)
            try sluggish.send("GET \(harness.endpoint("asset", originPath: "/big.bin")) HTTP/1.1\r\nHost: a\r\n\r\n")
            // others are served while both hang on; the sluggish client is sent the cached copy
            await onOwnThread { sluggish.waitUntilPending(4_096) }
            #expect(harness.origin.requestCount(path: "/big.bin") == 1)
            for _ in 0..<10 {
                let answer = try await harness.send(harness.endpoint("asset", originPath: "/small.txt"))
                #expect(answer.text == "ok")
            }
            #expect(silent.isOpen)
            #expect(sluggish.isOpen)
            // then both are cut off by their timeouts
            // the blocking reads and the wait run on threads of their own, not the pool's
            let silentEnd = await onOwnThread { silent.readUntilClosed(timeout: 20) }
            #expect(silentEnd.closed)
            let sluggishEnd = await onOwnThread { () -> (bytes: Int, closed: Bool) in
                // reads nothing until the write timeout has passed, then drains what the kernel holds;
                // the server's giving up shows nowhere before the client reads, so the wait is a sleep
                sluggish.waitUntilPending(4_096)
                usleep(3_500_000)
                return sluggish.readUntilClosed(timeout: 20)
            }
            #expect(sluggishEnd.closed)
            #expect(sluggishEnd.bytes < 8 << 20)
        }
    }

    @Test func metricsParseAsPrometheusTextAndMove() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/m.txt", .resource(TestResource(content: .bytes(Array("metric".utf8)), headers: freshForAnHour)))
            let before = try await Self.samples(harness)
            for _ in 0..<3 { _ = try await harness.send(harness.endpoint("asset", originPath: "/m.txt")) }
            _ = try await harness.send("/v1/missing")
            let after = try await Self.samples(harness)
            func delta(_ key: String) -> Double { (after[key] ?? 0) - (before[key] ?? 0) }
            #expect(delta("assetpipe_requests_total{endpoint=\"asset\",status=\"200\"}") == 3)
            #expect(delta("assetpipe_requests_total{endpoint=\"not_found\",status=\"404\"}") == 1)
            #expect(delta("assetpipe_cache_lookups_total{layer=\"memory\",kind=\"raw\",result=\"hit\"}") == 2)
            #expect(delta("assetpipe_origin_bytes_total") == 6)
            #expect(delta("assetpipe_client_bytes_total") >= 18)
            #expect(delta("assetpipe_loads_total{kind=\"raw\",outcome=\"downloaded\"}") == 1)
            #expect(after["assetpipe_evictions_total{layer=\"disk\"}"] != nil)
            #expect(after.keys.contains { $0.hasPrefix("assetpipe_request_duration_seconds_bucket{endpoint=\"asset\"") })
            #expect(after.keys.contains { $0.hasPrefix("assetpipe_fetch_duration_seconds_count") })
        }
    }

    @Test func healthAndReadiness() async throws {
        try await ServerHarness.with { harness in
            let alive = try await harness.send("/healthz")
            #expect(alive.status == 200)
            #expect(try await harness.send("/readyz").status == 200)
            #expect(try await harness.send("/readyz", method: .HEAD).status == 200)
            #expect(try await harness.send("/metrics", method: .POST).status == 405)
        }
    }

    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        let harness = try await ServerHarness.start()
        let gate = TestGate()
        harness.origin.setRoute("/slow.txt", .response(TestResponse(headers: freshForAnHour, body: .text("finished"), gate: gate)))
        let inFlight = Task { try await harness.send(harness.endpoint("asset", originPath: "/slow.txt")) }
        await harness.origin.waitForRequests(path: "/slow.txt", count: 1)
        let shutdown = Task { await harness.group.triggerGracefulShutdown() }
        // the answer is let go only once the server drains
        await harness.server.responder.context.state.waitUntilDraining()
        gate.open()
        let answer = try await inFlight.value
        #expect(answer.status == 200)
        #expect(answer.text == "finished")
        await shutdown.value
        _ = try await harness.runTask.value
        #expect(harness.server.listeningPort == nil)
        try await harness.client.shutdown()
        try await harness.manager.shutdown()
        await harness.origin.stop()
        try? FileManager.default.removeItem(at: harness.directory)
    }

    /// The samples of `/metrics`, keyed by name and labels, checking every line's syntax.
    static func samples(_ harness: ServerHarness) async throws -> [String: Double] {
        let answer = try await harness.send("/metrics")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type")?.hasPrefix("text/plain") == true)
        var samples: [String: Double] = [:]
        let sample = try Regex(#"^([a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\})?) (-?[0-9.eE+-]+|\+Inf|NaN)$"#)
        for line in answer.text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") { continue }
            let match = try #require(try sample.wholeMatch(in: String(line)), "not Prometheus text: \(line)")
            let key = String(match.output[1].substring ?? "")
            samples[key] = Double(String(match.output[4].substring ?? "")) ?? .nan
        }
        return samples
    }
}
