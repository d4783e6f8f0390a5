import AssetTestSupport
import Foundation
import Testing

/// `decode`, `convert` and `prefetch --validate` over WebP, AVIF, HEIC, GIF, TIFF, SVG and JPEG XL
/// sources.
@Suite("assetpipe over every source format")
struct FormatSourcesCommandTests {
    @Test func decodeJSONReportsWhatTheHeaderSays() async throws {
        let cases: [(String, [String: Any])] = [
            ("heif/pillow-heif/heif_other/cat.hif", ["format": "heif", "bitDepth": 10, "frames": 1, "hasAlpha": false]),
            ("heif/libheif/examples/example.heic", ["format": "heif", "frames": 2, "width": 1280, "height": 854]),
            ("avif/pillow/avif/rot2mir0.avif", ["format": "avif", "orientation": 2, "hasAlpha": false]),
            ("webp/danbooru/webp/Exif2.webp", ["format": "webp", "orientation": 2, "channels": 3]),
            ("gif/pillow/iss634.gif", ["format": "gif", "frames": 42, "hasAlpha": true]),
            ("tiff/pillow/multipage.tiff", ["format": "tiff", "frames": 3, "bitDepth": 1]),
            ("svg/libvips/logo.svg", ["format": "svg", "width": 736, "height": 552, "hasAlpha": true]),
            ("jxl/libgd/tests/jxl/alpha_distance_1_0.jxl", ["format": "jpeg-xl", "hasAlpha": true, "width": 32]),
        ]
        for (file, expected) in cases {
            let result = try await assetpipeAsync(["decode", CLIFixtures.path(file), "--json"])
            #expect(result.status == 0, "\(file): \(result.stderr)")
            let json = try jsonObject(result.stdout)
            for (key, value) in expected {
                if let flag = value as? Bool {
                    #expect(json[key] as? Bool == flag, "\(file): \(key)")
                } else {
                    #expect("\(json[key] ?? "nil")" == "\(value)", "\(file): \(key)")
                }
            }
            #expect(json["colorProfile"] is [String: Any])
        }
        // the nclx colour of a 10-bit HEIF, and an embedded ICC profile
        let cat = try jsonObject(try await assetpipeAsync(["decode", CLIFixtures.path("heif/pillow-heif/heif_other/cat.hif"), "--json"]).stdout)
        #expect((cat["colorProfile"] as? [String: Any])?["cicp"] as? String == "1/13/5")
        let alpha = try jsonObject(try await assetpipeAsync(["decode", CLIFixtures.path("heif/libheif/tests/data/with-alpha-512x512.heic"), "--json"]).stdout)
        #expect((alpha["colorProfile"] as? [String: Any])?["iccBytes"] as? Int == 672)
    }

    @Test func aTIFFPageAndAPagePastTheLast() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = CLIFixtures.path("tiff/pillow/multipage.tiff")
        var outputs: Set<Data> = []
        for page in 0..<3 {
            let out = dir.appendingPathComponent("p\(page).rgba").path
            #expect(try await assetpipeAsync(["decode", file, "--page", "\(page)", "-o", out]).status == 0)
            outputs.insert(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(outputs.count == 3)
        let past = try await assetpipeAsync(["decode", file, "--page", "3", "--json"])
        #expect(past.status == 1)
        #expect(past.stderr.contains("noSuchPage"))
    }

    @Test func convertDrawsAnSVGAtTheOutputSizeAndTurnsAHEICIntoAJPEG() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("logo.png").path
        let svg = try await assetpipeAsync(["convert", CLIFixtures.path("svg/libvips/logo.svg"), "-o", png, "--width", "1472", "--json"])
        #expect(svg.status == 0, "\(svg.stderr)")
        let json = try jsonObject(svg.stdout)
        #expect(json["width"] as? Int == 1472 && json["height"] as? Int == 1104)  // twice its own size: drawn, not refused
        let jpeg = dir.appendingPathComponent("photo.jpg").path
        let heic = try await assetpipeAsync(["convert", CLIFixtures.path("heif/libheif/examples/example.heic"), "-o", jpeg, "--width", "256", "--json"])
        #expect(heic.status == 0, "\(heic.stderr)")
        #expect(try jsonObject(heic.stdout)["height"] as? Int == 171)
        let check = try await shellAsync(["djpeg", "-outfile", "/dev/null", jpeg])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test func prefetchValidatesEverySourceFormatAndRefusesABrokenOne() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try CLIFixtures.temporaryDirectory("prefetch")
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = [
            "a.webp": "webp/pillow/transparent.webp", "b.avif": "avif/libavif/white_1x1.avif",
            "c.heic": "heif/pillow-heif/heif/zPug_3.heic", "d.gif": "gif/pillow/iss634.gif",
            "e.tif": "tiff/pillow/16bit.MM.deflate.tif", "f.svg": "svg/libvips/logo.svg",
            "g.jxl": "jxl/libgd/tests/jxl/alpha_distance_1_0.jxl", "broken.heic": "heif/pillow-heif/heif_corrupted/corrupted.heic",
        ]
        for (name, fixture) in files {
            // no telling extension or type: the bytes say what each is
            origin.setRoute("/\(name)", .resource(TestResource(
                content: .bytes(try CLIFixtures.bytes(fixture)), headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "application/octet-stream")])))
        }
        let list = dir.appendingPathComponent("list.txt")
        try Data(files.keys.sorted().map { origin.url("/\($0)") }.joined(separator: "\n").utf8).write(to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let run = try await assetpipeAsync([
            "prefetch", list.path, "--validate", "--cache-dir", dir.appendingPathComponent("cache").path, "--report", reportFile.path, "--quiet",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        for item in items {
            let url = item["url"] as? String ?? ""
            #expect(item["kind"] as? String == "image", "\(url)")
            if url.hasSuffix("broken.heic") {
                #expect(item["outcome"] as? String == "failed")
                #expect((item["error"] as? [String: Any])?["code"] as? String == "invalid")
            } else {
                #expect(item["outcome"] as? String == "downloaded", "\(url): \(item)")
            }
        }
    }
}
