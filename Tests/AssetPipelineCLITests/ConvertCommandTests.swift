import AssetCodecs
import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe convert")
struct ConvertCommandTests {
    /// Each format's reference decoder (scripts/install-deps installs them), run on `file`.
    static func referenceCheck(_ ext: String, _ file: String, scratch: URL) -> [String] {
        switch ext {
        case "jpg": ["djpeg", "-outfile", "/dev/null", file]
        case "png": ["pngcheck", "-q", file]
        case "webp": ["dwebp", "-quiet", file, "-o", "/dev/null"]
        default: ["avifdec", file, scratch.appendingPathComponent("check.png").path]
        }
    }

    @Test(arguments: ["jpg", "png", "webp", "avif"])
    func aFileBecomesEachFormatThatItsReferenceToolReads(_ ext: String) async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let result = try await assetpipeAsync([
            "convert", CLIFixtures.path("imaging/orientation-6.jpg"), "-o", out, "--width", "100", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try jsonObject(result.stdout)
        #expect(json["format"] as? String == (ext == "jpg" ? "jpeg" : ext))
        #expect(json["width"] as? Int == 100)
        #expect(json["height"] as? Int == 64)  // upright 224 x 144, scaled to 100 wide
        let size = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int
        #expect(json["bytes"] as? Int == size)
        let tool = Self.referenceCheck(ext, out, scratch: dir)
        let check = try await shellAsync(tool)
        #expect(check.status == 0, "\(tool): \(check.stderr)")
    }

    @Test func aFrameOfALottieAnimationIsRenderedThenTransformed() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // lottie-docs' solid layer: 512x512 of "#ff0000"
        let solid = dir.appendingPathComponent("solid.png").path
        let result = try await assetpipeAsync([
            "convert", CLIFixtures.path("lottie/lottie-docs/layers-solid.json"), "--frame", "0", "--width", "64", "-o", solid, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try jsonObject(result.stdout)
        #expect(json["format"] as? String == "png")  // auto, for a frame: PNG
        #expect((json["width"] as? Int, json["height"] as? Int) == (64, 64))
        let decoded = try ImageDecoder().decode(try Data(contentsOf: URL(fileURLWithPath: solid))).bitmap
        #expect(decoded.width == 64 && decoded.height == 64)
        #expect(stride(from: 0, to: decoded.pixels.count, by: 4).allSatisfy { decoded.pixels[$0..<$0 + 4] == [255, 0, 0, 255] })

        // a moving animation: the start, the middle (50% and 1.5 s at 60 fps are frame 90 of 180)
        let moving = CLIFixtures.path("lottie/lottie-docs/parenting.json")
        var outputs: [String: Data] = [:]
        for frame in ["0", "50%", "1.5s", "90"] {
            let out = dir.appendingPathComponent("p-\(frame).webp").path
            let run = try await assetpipeAsync(["convert", moving, "--frame", frame, "--width", "128", "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            outputs[frame] = try Data(contentsOf: URL(fileURLWithPath: out))
        }
        #expect(outputs["0"] != outputs["50%"])
        #expect(outputs["50%"] == outputs["1.5s"] && outputs["50%"] == outputs["90"])

        // past the end, and a file that is no animation: typed errors, exit 1; a bad spec: exit 2
        let past = try await assetpipeAsync(["convert", moving, "--frame", "100000", "-o", dir.appendingPathComponent("x.png").path, "--json"])
        #expect(past.status == 1)
        #expect(past.stdout.contains("frameOutOfRange"))
        let notLottie = try await assetpipeAsync([
            "convert", CLIFixtures.path("imaging/orientation-6.jpg"), "--frame", "0", "-o", dir.appendingPathComponent("y.png").path,
        ])
        #expect(notLottie.status == 1)
        let bad = try await assetpipeAsync(["convert", moving, "--frame", "soon", "-o", dir.appendingPathComponent("z.png").path])
        #expect(bad.status == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
    }

    @Test func aFrameOfAVideoIsFFmpegsFrameThenTransformed() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 17 s, 640x360, the index at the end
        let video = CLIFixtures.path("video/sample_with_increasing_timestamps_360p.mp4")
        let local = dir.appendingPathComponent("local.png").path
        let run = try await assetpipeAsync(["convert", video, "--frame", "2.5s", "-o", local, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try jsonObject(run.stdout)
        #expect(json["format"] as? String == "png" && json["width"] as? Int == 640 && json["height"] as? Int == 360)
        // the pixels ffmpeg -ss gives (PNG is lossless)
        let ffmpeg = try await shellAsync([
            "/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-ss", "2.5", "-i", video, "-frames:v", "1", "-sws_flags", "bicubic",
            "-f", "rawvideo", "-pix_fmt", "rgba", dir.appendingPathComponent("ffmpeg.rgba").path,
        ])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let decoded = try ImageDecoder().decode(try Data(contentsOf: URL(fileURLWithPath: local))).bitmap
        let reference = try [UInt8](Data(contentsOf: dir.appendingPathComponent("ffmpeg.rgba")))
        let samePixels = decoded.pixels == reference
        #expect(samePixels)

        // the same frame of the same bytes behind a loopback origin, through the cache's ranges
        let bytes = try CLIFixtures.bytes("video/sample_with_increasing_timestamps_360p.mp4")
        try await withTestOrigin { origin in
            // no extension in the URL: the first bytes tell it is a video
            origin.setRoute("/clip", .resource(TestResource(content: .bytes(bytes), eTag: "\"1\"", headers: [("Cache-Control", "max-age=3600")])))
            let remote = dir.appendingPathComponent("remote.png").path
            let fetched = try await assetpipeAsync(["convert", origin.url("/clip"), "--frame", "2.5s", "--cache-dir", dir.path, "-o", remote])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: remote)) == Data(contentsOf: URL(fileURLWithPath: local)))
            let ranges = origin.requests(path: "/clip").compactMap { $0.header("Range") }
            #expect(!ranges.isEmpty, "the video was read by ranges")
            let small = dir.appendingPathComponent("small.webp").path
            let scaled = try await assetpipeAsync([
                "convert", origin.url("/clip"), "--frame", "50%", "--width", "160", "--cache-dir", dir.path, "-o", small, "--json",
            ])
            #expect(scaled.status == 0, "\(scaled.stderr)")
            let scaledJSON = try jsonObject(scaled.stdout)
            #expect(scaledJSON["format"] as? String == "webp" && scaledJSON["width"] as? Int == 160 && scaledJSON["height"] as? Int == 90)
        }

        // a frame number other than 0, and a time past the end: typed errors, exit 1
        for frame in ["30", "20s"] {
            let refused = try await assetpipeAsync(["convert", video, "--frame", frame, "-o", dir.appendingPathComponent("r.png").path, "--json"])
            #expect(refused.status == 1)
            #expect(refused.stdout.contains("frameOutOfRange"), "\(frame): \(refused.stdout)")
        }
        // a malformed video: a typed error, no output
        let broken = try await assetpipeAsync([
            "convert", CLIFixtures.path("video/frames/malformed/chunk_out_of_range.mp4"), "--frame", "0",
            "-o", dir.appendingPathComponent("b.png").path, "--json",
        ])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("notAVideo"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("b.png").path))
    }

    @Test func aURLConvertsThroughTheCacheAndASecondRunTransformsNothing() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try CLIFixtures.bytes("jpeg/libjpeg-turbo/testorig.jpg")
        try await withTestOrigin { origin in
            origin.setRoute("/p.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"1\"", headers: [("Cache-Control", "max-age=3600")])))
            let arguments = [
                "convert", origin.url("/p.jpg"), "--cache-dir", dir.path, "-o", dir.appendingPathComponent("t.webp").path,
                "--transform", "w=64,h=64,fit=cover,q=70", "--json",
            ]
            let first = try await assetpipeAsync(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            let json = try jsonObject(first.stdout)
            #expect(json["origin"] as? String == "transformed")
            #expect(json["transform"] as? String == "w=64,h=64,fit=cover,format=webp,q=70")
            #expect((json["width"] as? Int, json["height"] as? Int) == (64, 64))
            let second = try await assetpipeAsync(arguments)
            #expect(try jsonObject(second.stdout)["origin"] as? String == "disk")
            #expect(origin.requestCount(path: "/p.jpg") == 1)
        }
    }

    @Test(arguments: [
        ["--width", "0"], ["--width", "100000"], ["--format", "bmp"], ["--fit", "squash"], ["--quality", "0"],
        ["--transform", "w=10,bogus=1"], ["--format", "png"],  // disagrees with out.webp
    ])
    func absurdTransformsExitTwoAndWriteNothing(_ flags: [String]) async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.webp").path
        let result = try await assetpipeAsync(["convert", CLIFixtures.path("imaging/orientation-1.jpg"), "-o", out] + flags)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(arguments: [
        "png/libpng-testpngs/crashers/badcrc.png", "jpeg/jpeg-decoder-crashtest/missing-sos.jpg",
        "jpeg/jpeg-decoder-crashtest/dc-predictor-overflow.jpg",
    ])
    func badSourcesExitOneWithATypedErrorAndNoFile(_ source: String) async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.png").path
        let result = try await assetpipeAsync(["convert", CLIFixtures.path(source), "-o", out, "--width", "8", "--json"])
        if result.status == 0 {
            // A JPEG whose damage libjpeg fills in (with warnings) still converts; the file must then be whole.
            #expect(source.hasSuffix(".jpg"))
            #expect(FileManager.default.fileExists(atPath: out))
        } else {
            #expect(result.status == 1)
            let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
            #expect(["corrupt", "truncated", "unsupported", "tooLarge"].contains(error["code"] as? String ?? ""))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
