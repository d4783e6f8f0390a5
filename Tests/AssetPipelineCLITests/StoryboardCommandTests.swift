import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe storyboard")
struct StoryboardCommandTests {
    func temporaryDirectory() throws -> URL { try CLIFixtures.temporaryDirectory("storyboard") }

    /// 3 MB, 17 s of 640x360 H.264, its index at the end.
    static let long = "video/sample_with_increasing_timestamps_360p.mp4"

    @Test func writesTheSpriteTheVTTAndTheJSONAndASecondRunIsACacheHit() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/v.mp4", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes(Self.long)), eTag: "\"v\"", headers: [("Cache-Control", "max-age=3600")])))
        let out = dir.appendingPathComponent("board")
        let arguments = [
            "storyboard", origin.url("/v.mp4"), "--interval", "5s", "--width", "120", "--output", out.path,
            "--cache-dir", dir.appendingPathComponent("cache").path, "--json",
        ]
        let run = try await assetpipeAsync(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try jsonObject(run.stdout)
        #expect(json["tiles"] as? Int == 4 && json["cache"] as? String == "transformed")
        #expect((json["width"] as? Int, json["height"] as? Int) == (480, 68))
        let vtt = try String(contentsOf: out.appendingPathComponent("storyboard.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n"))
        #expect(vtt.contains("00:00:05.000 --> 00:00:10.000\nstoryboard.jpg#xywh=120,0,120,68\n"))
        let sprite = try Data(contentsOf: out.appendingPathComponent("storyboard.jpg"))
        #expect(sprite.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("storyboard.json").path))

        let again = try await assetpipeAsync(arguments)
        #expect(try jsonObject(again.stdout)["cache"] as? String == "disk")
        let requests = origin.requestCount(path: "/v.mp4")
        #expect(origin.requests(path: "/v.mp4").allSatisfy { $0.header("Range") != nil }, "the video is read by range only")
        #expect(requests > 0)

        let bad = try await assetpipeAsync(["storyboard", origin.url("/v.mp4"), "--interval", "0", "--output", out.path])
        #expect(bad.status == 2)
    }
}
