import AssetTestSupport
import Foundation
import Testing

/// `assetpipe convert` of an animated GIF or WebP: animated into WebP and GIF, the first frame into
/// a still format, one frame with `--frame`; the outputs read back by `decode --json` (whose frame
/// counts come from giflib and libwebpdemux, not from our encoders).
@Suite("assetpipe convert keeps animations")
struct AnimatedConvertCommandTests {
    @Test func anAnimatedGIFStaysAnimatedInWebPAndGIF() async throws {
        let dir = try CLIFixtures.temporaryDirectory("animated")
        defer { try? FileManager.default.removeItem(at: dir) }
        // (At sizes where two frames in a row come out the same, WebPAnimEncoder merges them into one
        // of both durations, as in libvips's and gif2webp's output: these sizes keep every frame.)
        for (source, frames, width) in [("gif/pillow/iss634.gif", 42, 120), ("webp/pillow/iss634.webp", 42, 120), ("gif/wuffs/muybridge.gif", 15, 24)] {
            for ext in ["webp", "gif"] {
                let out = dir.appendingPathComponent("out.\(ext)").path
                let run = try await assetpipeAsync(["convert", CLIFixtures.path(source), "-o", out, "--width", "\(width)", "--json"])
                #expect(run.status == 0, "\(source) -> \(ext): \(run.stderr)")
                #expect(try jsonObject(run.stdout)["width"] as? Int == width)
                let decoded = try await assetpipeAsync(["decode", out, "--json"])
                #expect(decoded.status == 0, "\(decoded.stderr)")
                let json = try jsonObject(decoded.stdout)
                #expect(json["format"] as? String == ext)
                #expect(json["frames"] as? Int == frames, "\(source) -> \(ext)")
            }
        }
    }

    @Test func aStillFormatTakesTheFirstFrameAndFramePicksAnother() async throws {
        let dir = try CLIFixtures.temporaryDirectory("animated-still")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = CLIFixtures.path("gif/pillow/iss634.gif")
        let first = dir.appendingPathComponent("first.png").path
        let zero = dir.appendingPathComponent("zero.png").path
        let fifth = dir.appendingPathComponent("fifth.png").path
        #expect(try await assetpipeAsync(["convert", source, "-o", first]).status == 0)
        #expect(try await assetpipeAsync(["convert", source, "-o", zero, "--frame", "0"]).status == 0)
        #expect(try await assetpipeAsync(["convert", source, "-o", fifth, "--frame", "5"]).status == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: first)), b = try Data(contentsOf: URL(fileURLWithPath: zero))
        let c = try Data(contentsOf: URL(fileURLWithPath: fifth))
        #expect(a == b)
        #expect(a != c)
        let past = try await assetpipeAsync(["convert", source, "-o", dir.appendingPathComponent("past.png").path, "--frame", "42"])
        #expect(past.status == 1)
        #expect(past.stderr.contains("noSuchPage"), "\(past.stderr)")
    }

    @Test func aLottieAnimationBecomesAnAnimatedWebPOrGIF() async throws {
        let dir = try CLIFixtures.temporaryDirectory("animate")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = CLIFixtures.path("lottie/lottie-ios/LottieLogo1.json")
        for ext in ["webp", "gif"] {
            let out = dir.appendingPathComponent("logo.\(ext)").path
            let run = try await assetpipeAsync([
                "convert", source, "--animate", "-o", out, "--width", "64", "--fps", "10", "--from", "0", "--to", "50%",
                "--cache-dir", dir.appendingPathComponent("cache").path, "--json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try jsonObject(run.stdout)["width"] as? Int == 64)
            let decoded = try await assetpipeAsync(["decode", out, "--json"])
            let json = try jsonObject(decoded.stdout)
            #expect(json["format"] as? String == ext)
            #expect((json["frames"] as? Int ?? 0) > 3)
        }
        let still = try await assetpipeAsync(["convert", source, "--animate", "-o", dir.appendingPathComponent("x.png").path])
        #expect(still.status != 0)
        #expect(still.stderr.contains("WebP, GIF or MP4"), "\(still.stderr)")
        let stray = try await assetpipeAsync(["convert", source, "--fps", "10", "-o", dir.appendingPathComponent("x.webp").path])
        #expect(stray.status == 64 || stray.status == 2, "\(stray.status) \(stray.stderr)")
    }

    @Test func aVideoFileBecomesAnAnimatedPreviewAndAGIFAnMP4() async throws {
        let dir = try CLIFixtures.temporaryDirectory("animate-video")
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = CLIFixtures.path("video/sample.mp4")  // 1080x720, 1.024 s
        // 0.2 s to 0.6 s at 10 frames a second: 4 frames of 100 ms, 100 px wide
        let gif = dir.appendingPathComponent("v.gif").path
        let run = try await assetpipeAsync(["convert", video, "--animate", "--from", "0.2s", "--to", "0.6s", "--width", "100", "-o", gif, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try jsonObject(run.stdout)["transform"] as? String == "animate=1,from=0.2s,to=0.6s,w=100,format=gif")
        let decoded = try jsonObject(try await assetpipeAsync(["decode", gif, "--json"]).stdout)
        #expect(decoded["frames"] as? Int == 4 && decoded["width"] as? Int == 100)
        // the default preview as MP4: the whole 1.024 s at 10 fps, even sides
        let mp4 = dir.appendingPathComponent("v.mp4").path
        let movie = try await assetpipeAsync(["convert", video, "--animate", "--width", "201", "-o", mp4, "--json"])
        #expect(movie.status == 0, "\(movie.stderr)")
        let json = try jsonObject(movie.stdout)
        #expect(json["mediaType"] as? String == "video/mp4" && json["width"] as? Int == 200)
        let head = try Data(contentsOf: URL(fileURLWithPath: mp4)).prefix(12)
        #expect(head.dropFirst(4).prefix(4) == Data("ftyp".utf8))
        // an animated GIF into MP4 without --animate; a still is no animation
        let fromGIF = try await assetpipeAsync(["convert", gif, "-o", dir.appendingPathComponent("g.mp4").path, "--json"])
        #expect(fromGIF.status == 0, "\(fromGIF.stderr)")
        let still = try await assetpipeAsync([
            "convert", CLIFixtures.path("png/pngsuite/basn6a08.png"), "--animate", "-o", dir.appendingPathComponent("p.webp").path,
        ])
        #expect(still.status == 1 && still.stderr.contains("notAnAnimation"), "\(still.stderr)")
        let stillMP4 = try await assetpipeAsync([
            "convert", CLIFixtures.path("png/pngsuite/basn6a08.png"), "-o", dir.appendingPathComponent("p.mp4").path,
        ])
        #expect(stillMP4.status == 1 && stillMP4.stderr.contains("unsupportedFormat"), "\(stillMP4.stderr)")
    }
}
