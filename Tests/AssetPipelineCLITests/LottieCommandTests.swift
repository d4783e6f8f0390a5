import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe lottie")
struct LottieCommandTests {
    /// Fixtures/lottie/reference.tsv rows grouped by file, in file order.
    static func referenceFiles() throws -> [(path: String, rows: [[String: String]])] {
        var files: [(path: String, rows: [[String: String]])] = []
        for row in try CLIFixtures.rows("lottie/reference.tsv") {
            if files.last?.path == row["path"] { files[files.count - 1].rows.append(row) } else { files.append((row["path"]!, [row])) }
        }
        return files
    }

    /// Every dotLottie and `.tgs`, and every seventh of the rest: the facts match the reference reading.
    static let sample: [String] = {
        guard let files = try? referenceFiles() else { return [] }
        return files.enumerated().filter { index, file in
            !file.path.hasSuffix(".json") || index.isMultiple(of: 7)
        }.map(\.element.path)
    }()

    static func expect(_ facts: [String: Any], matches row: [String: String], _ path: String) {
        func number(_ key: String) -> Double? { (facts[key] as? NSNumber)?.doubleValue }
        // The command writes doubles exactly (29.070000933716074), but Foundation's JSON reader on
        // Linux reads that back one or two units in the last place off: compare to 1e-12, relative.
        func close(_ key: String, _ column: String) -> Bool {
            guard let value = number(key), let expected = Double(row[column]!) else { return false }
            return abs(value - expected) <= 1e-12 * max(1, abs(expected))
        }
        #expect(facts["version"] as? String == (row["version"] == "-" ? nil : row["version"]), "\(path)")
        #expect(close("frameRate", "fr"), "\(path)")
        #expect(close("inPoint", "ip"), "\(path)")
        #expect(close("outPoint", "op"), "\(path)")
        #expect(close("width", "w"), "\(path)")
        #expect(close("height", "h"), "\(path)")
        #expect(facts["layerCount"] as? Int == Int(row["layers"]!) ?? 0, "\(path)")
        #expect(facts["assetCount"] as? Int == Int(row["assets"]!) ?? 0, "\(path)")
        let fr = Double(row["fr"]!)!, ip = Double(row["ip"]!)!, op = Double(row["op"]!)!
        #expect(abs((number("durationSeconds") ?? .nan) - (op - ip) / fr) < 1e-9, "\(path)")
    }

    @Test(arguments: sample)
    func reportsTheReferenceFacts(_ path: String) async throws {
        let rows = try #require(try Self.referenceFiles().first { $0.path == path }?.rows)
        let result = try await assetpipeAsync(["lottie", CLIFixtures.path("lottie/" + path), "--json"])
        #expect(result.status == 0, "\(path): \(result.stderr)")
        let json = try jsonObject(result.stdout)
        if let animations = json["animations"] as? [[String: Any]] {
            #expect(animations.count == rows.count, "\(path)")
            for (facts, row) in zip(animations, rows) {
                #expect(facts["id"] as? String == row["id"], "\(path)")
                Self.expect(facts, matches: row, path)
            }
        } else {
            #expect(rows.count == 1 && rows[0]["id"] == "-", "\(path) should be a dotLottie")
            Self.expect(json, matches: rows[0], path)
        }
    }

    @Test func strictModeReportsProblemsWithTheirPaths() async throws {
        let file = CLIFixtures.path("lottie/lottie-spec/invalid/malformed-embedded-image.json")
        #expect(try await assetpipeAsync(["lottie", file, "--json"]).status == 0)
        let strict = try await assetpipeAsync(["lottie", file, "--json", "--strict"])
        #expect(strict.status == 1)
        let error = try #require(try jsonObject(strict.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "validationFailed")
        let problems = try #require(error["problems"] as? [[String: String]])
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0["path"]?.hasPrefix("$.assets[") == true && !($0["message"] ?? "").isEmpty })
        #expect(strict.stderr.contains("$.assets["))
        // A valid file passes strict mode.
        #expect(try await assetpipeAsync(["lottie", CLIFixtures.path("lottie/lottie-docs/bezier.json"), "--strict", "--json"]).status == 0)
    }

    @Test func unreadableInputsExitOneWithATypedError() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try CLIFixtures.bytes("lottie/lottie-docs/bezier.json")
        let truncated = dir.appendingPathComponent("truncated.json")
        try Data(json.prefix(json.count / 2)).write(to: truncated)
        let deep = dir.appendingPathComponent("deep.json")
        try Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8).write(to: deep)
        let cases: [(path: String, code: String)] = [
            (truncated.path, "unexpectedEnd"),
            (deep.path, "depthLimitExceeded"),
            (CLIFixtures.path("png/pngsuite/basn6a08.png"), "unexpectedCharacter"),
            (dir.appendingPathComponent("missing.json").path, "notFound"),
        ]
        for item in cases {
            let result = try await assetpipeAsync(["lottie", item.path, "--json"])
            #expect(result.status == 1, "\(item.path)")
            let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
            #expect(error["code"] as? String == item.code, "\(item.path): \(error)")
            #expect(!(error["message"] as? String ?? "").isEmpty)
        }
    }

    @Test func badUsageExitsTwo() async throws {
        #expect(try await assetpipeAsync(["lottie"]).status == 2)
        #expect(try await assetpipeAsync(["lottie", CLIFixtures.path("lottie/lottie-docs/bezier.json"), "--frobnicate"]).status == 2)
    }

    @Test func aURLLoadsThroughTheCache() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = "lottie-ios/DotLottie/multiple_animations.lottie"
        let rows = try #require(try Self.referenceFiles().first { $0.path == path }?.rows)
        try await withTestOrigin { origin in
            origin.setRoute("/m.lottie", .resource(TestResource(
                content: .bytes(try CLIFixtures.bytes("lottie/" + path)), headers: [("Cache-Control", "max-age=3600")])))
            for _ in 0..<2 {
                let result = try await assetpipeAsync(["lottie", origin.url("/m.lottie"), "--cache-dir", dir.path, "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                let animations = try #require(try jsonObject(result.stdout)["animations"] as? [[String: Any]])
                #expect(animations.map { $0["id"] as? String } == rows.map { $0["id"] })
            }
            #expect(origin.requestCount(path: "/m.lottie") == 1)
            let missing = try await assetpipeAsync(["lottie", origin.url("/none.json"), "--cache-dir", dir.path, "--json"])
            #expect(missing.status == 1)
        }
    }
}
