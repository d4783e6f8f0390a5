import AssetStorage
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@Suite("assetpipe serve")
struct ServeCommandTests {
    /// The port of a `serve` process, read from its "listening on" line.
    static func port(of command: RunningCommand) async throws -> Int {
        let text = try #require(await command.standardError(containing: "listening on http://"))
        let match = try #require(text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/))
        return try #require(Int(match.1))
    }

    /// `timeout` bounds the whole exchange, body included: the drain test's answer waits on its
    /// gate, which opens only once the server says it drains (seconds on a loaded machine).
    static func get(_ url: String, client: HTTPClient, timeout: Int64 = 30) async throws -> (status: Int, body: [UInt8]) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(timeout))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    @Test func sigtermDrainsRequestsInFlightAndExitsZero() async throws {
        let dir = try CLIFixtures.temporaryDirectory("serve")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            let gate = TestGate()
            origin.setRoute("/slow.bin", .response(TestResponse(
                headers: [("Cache-Control", "max-age=3600")], body: .generated(length: 3_000_000), gate: gate)))
            // room to drain on a loaded machine (the default 10 s once ran out beside the whole suite,
            // and 120 s on 2026-11-29: loopback HTTP from the test process stalls for minutes at times
            // in the full parallel run, cause not found yet; see the TestOrigin suites' limits)
            let command = try RunningCommand(["serve", "--port", "0", "--cache-dir", dir.path, "--allow-private", "--drain-timeout", "300"])
            let port = try await Self.port(of: command)
            let client = HTTPClient.shared
            let url = "http://127.0.0.1:\(port)/v1/asset?url=\(origin.url("/slow.bin").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            // as long as the server's drain: the gate opens after its "draining" line
            let inFlight = Task { try await Self.get(url, client: client, timeout: 330) }
            await origin.waitForRequests(path: "/slow.bin", count: 1)
            command.send(SIGTERM)
            #expect(await command.standardError(containing: "draining") != nil)
            gate.open()
            let answer = try await inFlight.value
            #expect(answer.status == 200)
            #expect(answer.body == TestContent.generatedBytes(0..<3_000_000))
            let result = await command.wait()
            #expect(result.status == 0)
            #expect(result.stderr.contains("assetpipe serve stopped"))
            // the access records were flushed: the cache holds the asset, once accessed
            let stats = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
            #expect(try jsonObject(stats.stdout)["entries"] as? Int == 1)
        }
    }

    @Test func settingsComeFromFlagsOrTheEnvironment() async throws {
        let dir = try CLIFixtures.temporaryDirectory("serve-env")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokenFile = dir.appendingPathComponent("token")
        try Data("a-token-of-some-length\n".utf8).write(to: tokenFile)
        var environment = ProcessInfo.processInfo.environment
        environment["ASSETPIPE_PORT"] = "0"
        environment["ASSETPIPE_NODE_NAME"] = "node-7"
        environment["ASSETPIPE_ADMIN_TOKEN_FILE"] = tokenFile.path
        environment["ASSETPIPE_CACHE_DIR"] = dir.appendingPathComponent("cache").path
        let command = try RunningCommand(["serve"], environment: environment)
        let port = try await Self.port(of: command)
        let client = HTTPClient.shared
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/cache/prune")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer a-token-of-some-length")
        let response = try await client.execute(request, timeout: .seconds(30))
        #expect(response.status.code == 200)
        #expect(response.headers.first(name: "X-Assetpipe-Node") == "node-7")
        _ = try await response.body.collect(upTo: 1 << 20)
        command.send(SIGINT)
        #expect(await command.wait().status == 0)
    }

    @Test func signedImageURLsFromSignAreWhatServeChecks() async throws {
        let dir = try CLIFixtures.temporaryDirectory("serve-sign")
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("key")
        try Data("0123456789abcdef-cli-key\n".utf8).write(to: keyFile)
        let jpeg = try CLIFixtures.bytes("jpeg/libjpeg-turbo/testorig.jpg")
        try await withTestOrigin { origin in
            origin.setRoute("/s.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"s\"", headers: [("Cache-Control", "max-age=60")])))
            var environment = ProcessInfo.processInfo.environment
            environment["ASSETPIPE_SIGNING_KEY_FILE"] = keyFile.path
            environment["ASSETPIPE_SIGNING_SALT"] = "salty"
            environment["ASSETPIPE_PRESETS"] = "thumb=w:48,h:48,fit:cover"
            let command = try RunningCommand(
                ["serve", "--port", "0", "--cache-dir", dir.appendingPathComponent("cache").path, "--allow-private"], environment: environment)
            let port = try await Self.port(of: command)
            let base = "http://127.0.0.1:\(port)"
            let signed = try await assetpipeAsync([
                "sign", "--key-file", keyFile.path, "--salt", "salty", "--transform", "w=40,format=webp", "--base", base, "--json",
                origin.url("/s.jpg"),
            ])
            #expect(signed.status == 0, "\(signed.stderr)")
            let json = try jsonObject(signed.stdout)
            let query = try #require(json["query"] as? String)
            let path = try #require(json["path"] as? String)
            #expect(path.hasSuffix(".webp"))
            for url in [query, path] {
                let answer = try await Self.get(url, client: HTTPClient.shared)
                #expect(answer.status == 200, "\(url)")
                #expect(answer.body.starts(with: Array("RIFF".utf8)))
            }
            let unsigned = try await Self.get("\(base)/v1/image?url=\(origin.url("/s.jpg"))&w=40&format=webp", client: HTTPClient.shared)
            #expect(unsigned.status == 403)
            let wrongSalt = try await assetpipeAsync([
                "sign", "--key-file", keyFile.path, "--transform", "w=40,format=webp", "--base", base, origin.url("/s.jpg"),
            ])
            let wrongURL = String(try #require(wrongSalt.stdout.split(separator: "\n").first))
            #expect(try await Self.get(wrongURL, client: HTTPClient.shared).status == 403)
            let preset = try await assetpipeAsync([
                "sign", "--key-file", keyFile.path, "--salt", "salty", "--transform", "w=48,h=48,fit=cover,format=png", "--base", base,
                origin.url("/s.jpg"),
            ])
            let presetURL = String(try #require(preset.stdout.split(separator: "\n").first))
            #expect(try await Self.get(presetURL, client: HTTPClient.shared).status == 200)
            command.send(SIGINT)
            let finished = await command.wait()
            #expect(finished.status == 0)
            #expect(!finished.stderr.contains("image transforms are open"))
        }
        #expect(try await assetpipeAsync(["sign", "--key-file", keyFile.path, "--transform", "w=0", "http://x.org/a.jpg"]).status == 2)
        #expect(try await assetpipeAsync(["sign", "--key-file", keyFile.path, "ftp://x.org/a.jpg"]).status == 2)
    }

    @Test func commandsFetchThroughAServeNodeWithVia() async throws {
        let dir = try CLIFixtures.temporaryDirectory("serve-via")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestOrigin { origin in
            origin.setRoute("/v.png", .resource(TestResource(
                content: .bytes(try CLIFixtures.bytes("png/pngsuite/basn6a08.png")), eTag: "\"p\"", headers: [("Cache-Control", "max-age=3600")])))
            let node = try RunningCommand([
                "serve", "--port", "0", "--cache-dir", dir.appendingPathComponent("node").path, "--allow-private", "--node-name", "tier-a",
            ])
            let port = try await Self.port(of: node)
            let tier = "http://127.0.0.1:\(port)"
            let get = try await assetpipeAsync(["get", origin.url("/v.png"), "--via", tier, "--cache-dir", dir.appendingPathComponent("host").path, "--json"])
            #expect(get.status == 0)
            let answer = try jsonObject(get.stdout)
            #expect(answer["node"] as? String == "tier-a")
            #expect(answer["route"] as? String == "tier(tier-a)")
            let decode = try await assetpipeAsync([
                "decode", origin.url("/v.png"), "--via", tier, "--cache-dir", dir.appendingPathComponent("host2").path, "--json"])
            #expect(decode.status == 0)
            let list = dir.appendingPathComponent("list.txt")
            try Data((origin.url("/v.png") + "\n").utf8).write(to: list)
            let prefetch = try await assetpipeAsync([
                "prefetch", list.path, "--via", tier, "--cache-dir", dir.appendingPathComponent("host3").path, "--json", "--quiet"])
            #expect(prefetch.status == 0)
            let summary = try #require(try jsonObject(prefetch.stdout)["summary"] as? [String: Any])
            #expect(summary["itemsPerNode"] as? [String: Int] == ["tier-a": 1])
            #expect(summary["cached"] as? Int == 1)
            // the origin was asked once, by the node
            #expect(origin.requestCount(path: "/v.png") == 1)
            node.send(SIGTERM)
            #expect(await node.wait().status == 0)
        }
        #expect(try await assetpipeAsync(["get", "http://127.0.0.1:1/x", "--via", "ftp://tier"]).status == 2)
        #expect(try await assetpipeAsync(["get", "http://127.0.0.1:1/x", "--via", "http://tier", "--via-fallback", "maybe"]).status == 2)
        #expect(try await assetpipeAsync(["prefetch", "-", "--keep-local"]).status == 2)
    }

    @Test func versionIsTheLibrarysConstant() async throws {
        let result = try await assetpipeAsync(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == AssetPipelineVersion.current)
    }

    @Test func badSettingsExitTwo() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["ASSETPIPE_MAX_CONNECTIONS"] = "many"
        #expect(try await assetpipeAsync(["serve", "--port", "0"], environment: environment).status == 2)
        for arguments in [
            ["serve", "--port", "70000"], ["serve", "--origin", "ftp://example.org"], ["serve", "--origin", "http://example.org/path"],
            ["serve", "--allow-host", "a*b.org"], ["serve", "--request-timeout", "0"], ["serve", "--admin-token-file", "/nonexistent/token"],
            ["serve", "--log-level", "loud"], ["serve", "--frobnicate"],
            ["serve", "--preset", "thumb"], ["serve", "--preset", "thumb=w:0"], ["serve", "--presets-only"],
            ["serve", "--signing-key-file", "/nonexistent/key"], ["serve", "--signing-salt", "s"], ["serve", "--max-transforms", "0"],
            ["serve", "--transform-timeout", "-1"], ["serve", "--max-output-pixels", "0"],
        ] {
            let result = try await assetpipeAsync(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("assetpipe") || result.stderr.contains("Error"), "\(arguments)")
        }
    }
}
