import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe prefetch --variant frame= of a video, by range")
struct VideoFramePrefetchTests {
    func temporaryDirectory() throws -> URL { try CLIFixtures.temporaryDirectory("video-frame-prefetch") }

    /// 3 MB, 17 s of 640x360 H.264, its index at the end.
    static let long = "video/sample_with_increasing_timestamps_360p.mp4"

    @Test func prefetchMakesAVideosFrameVariantByRange() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/clip/v.mp4", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes(Self.long)), eTag: "\"v\"", headers: [("Cache-Control", "max-age=3600")])))
        let list = dir.appendingPathComponent("urls.txt")
        try Data((origin.url("/clip/v.mp4") + "\n").utf8).write(to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let cacheDir = dir.appendingPathComponent("cache").path
        // only the first 64 KiB asked for: the frame reads the rest it needs by range, never the whole file
        let run = try await assetpipeAsync([
            "prefetch", list.path, "--cache-dir", cacheDir, "--report", reportFile.path, "--quiet", "--timeout", "60",
            "--video-prefix", "65536", "--variant", "frame=50%,w=64,format=png",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as? [String: Any])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["failed"] as? Int == 0 && summary["variants"] as? Int == 1, "\(report)")
        #expect(origin.requests(path: "/clip/v.mp4").allSatisfy { $0.header("Range") != nil }, "the video is read by range only")
        // the variant is in the cache under the chunk record's validator: convert finds it there
        let convert = try await assetpipeAsync([
            "convert", origin.url("/clip/v.mp4"), "--cache-dir", cacheDir, "--transform", "frame=50%,w=64,format=png",
            "-o", dir.appendingPathComponent("v.png").path, "--json",
        ])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try jsonObject(convert.stdout)["origin"] as? String == "disk")
    }

    @Test func prefetchMakesAVideosPreviewAndALottieAnimationByRange() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = ("Cache-Control", "max-age=3600")
        origin.setRoute("/clip/v.mp4", .resource(TestResource(content: .bytes(try CLIFixtures.bytes(Self.long)), eTag: "\"v\"", headers: [fresh])))
        origin.setRoute("/anim/a.json", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("lottie/lottie-docs/parenting.json")), eTag: "\"a\"", headers: [fresh])))
        let list = dir.appendingPathComponent("urls.txt")
        try Data((origin.url("/clip/v.mp4") + "\n" + origin.url("/anim/a.json") + "\n").utf8).write(to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let cacheDir = dir.appendingPathComponent("cache").path
        let variant = "animate=1,to=2s,fps=5,w=64,format=mp4"
        let run = try await assetpipeAsync([
            "prefetch", list.path, "--cache-dir", cacheDir, "--report", reportFile.path, "--quiet", "--timeout", "60",
            "--video-prefix", "65536", "--variant", variant,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as? [String: Any])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["failed"] as? Int == 0 && summary["variants"] as? Int == 2, "\(report)")
        #expect(origin.requests(path: "/clip/v.mp4").allSatisfy { $0.header("Range") != nil }, "the video is read by range only")
        // both are in the cache: convert finds them there
        for path in ["/clip/v.mp4", "/anim/a.json"] {
            let convert = try await assetpipeAsync([
                "convert", origin.url(path), "--cache-dir", cacheDir, "--transform", variant,
                "-o", dir.appendingPathComponent("out.mp4").path, "--json",
            ])
            #expect(convert.status == 0, "\(convert.stderr)")
            let json = try jsonObject(convert.stdout)
            #expect(json["origin"] as? String == "disk", "\(path): \(json)")
            #expect(json["mediaType"] as? String == "video/mp4")
        }
        // convert of the video's URL into a new cache reads it by range too
        let before = origin.requests(path: "/clip/v.mp4").count
        let cold = try await assetpipeAsync([
            "convert", origin.url("/clip/v.mp4"), "--cache-dir", dir.appendingPathComponent("cold").path, "--animate", "--from", "8.5s",
            "--width", "64", "-o", dir.appendingPathComponent("cold.gif").path, "--json",
        ])
        #expect(cold.status == 0, "\(cold.stderr)")
        let requests = origin.requests(path: "/clip/v.mp4").dropFirst(before)
        #expect(!requests.isEmpty && requests.allSatisfy { $0.header("Range") != nil }, "the video is read by range only")
    }
}
