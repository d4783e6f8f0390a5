import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe decode")
struct DecodeCommandTests {
    static let images = [
        "png/pngsuite/basn6a08.png", "png/pngsuite/basn3p04.png", "png/pngsuite/basi3p02.png", "png/pngsuite/basn0g16.png",
        "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/jpeg-decoder-reftest/mozilla/jpg-gray.jpg",
    ]

    /// Splits a netpbm file into its header lines and its pixel bytes.
    static func netpbm(_ data: Data, headerLines: Int) -> (header: [String], body: Data) {
        var index = data.startIndex
        var lines: [String] = []
        while lines.count < headerLines, let newline = data[index...].firstIndex(of: 0x0A) {
            lines.append(String(decoding: data[index..<newline], as: UTF8.self))
            index = newline + 1
        }
        return (lines, Data(data[index...]))
    }

    @Test(arguments: images)
    func writesExactPixelsInEveryFormat(_ image: String) async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let reference = try CLIFixtures.pixelHash(image)
        let rgba = dir.appendingPathComponent("out.rgba")
        let result = try await assetpipeAsync(["decode", CLIFixtures.path(image), "--output", rgba.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try jsonObject(result.stdout)
        #expect(json["format"] as? String == (image.hasSuffix(".png") ? "png" : "jpeg"))
        #expect(json["width"] as? Int == reference.width)
        #expect(json["height"] as? Int == reference.height)
        #expect(json["warnings"] as? [String] == [])
        let raw = try Data(contentsOf: rgba)
        #expect(CLIFixtures.sha256(raw) == reference.sha256)

        let pam = dir.appendingPathComponent("out.pam")
        #expect(try await assetpipeAsync(["decode", CLIFixtures.path(image), "-o", pam.path]).status == 0)
        let (pamHeader, pamBody) = Self.netpbm(try Data(contentsOf: pam), headerLines: 7)
        #expect(pamHeader == [
            "P7", "WIDTH \(reference.width)", "HEIGHT \(reference.height)", "DEPTH 4", "MAXVAL 255", "TUPLTYPE RGB_ALPHA", "ENDHDR",
        ])
        #expect(CLIFixtures.sha256(pamBody) == reference.sha256)

        let ppm = dir.appendingPathComponent("out.ppm")
        #expect(try await assetpipeAsync(["decode", CLIFixtures.path(image), "-o", ppm.path]).status == 0)
        let (ppmHeader, ppmBody) = Self.netpbm(try Data(contentsOf: ppm), headerLines: 3)
        #expect(ppmHeader == ["P6", "\(reference.width) \(reference.height)", "255"])
        let rgbFromReference = Data(raw.enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
        #expect(ppmBody == rgbFromReference)
    }

    @Test func maxDimensionUsesDCTScaling() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = "jpeg/libjpeg-turbo/testorig.jpg"
        let half = try CLIFixtures.pixelHash(image, scale: 2)
        let out = dir.appendingPathComponent("half.rgba")
        let result = try await assetpipeAsync(["decode", CLIFixtures.path(image), "--max-dimension", "\(half.width)", "-o", out.path, "--json"])
        #expect(result.status == 0)
        let json = try jsonObject(result.stdout)
        #expect(json["width"] as? Int == half.width)
        #expect(json["height"] as? Int == half.height)
        #expect(json["sourceWidth"] as? Int == 227)
        #expect(CLIFixtures.sha256(try Data(contentsOf: out)) == half.sha256)
    }

    @Test func warningsAreReportedWithTheImage() async throws {
        let result = try await assetpipeAsync(["decode", CLIFixtures.path("jpeg/jpeg-decoder-crashtest/dc-predictor-overflow.jpg"), "--json"])
        #expect(result.status == 0)
        let warnings = try #require(try jsonObject(result.stdout)["warnings"] as? [String])
        #expect(!warnings.isEmpty)
    }

    @Test func undecodableInputsExitOneWithATypedError() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(path: String, codes: Set<String>, extra: [String])] = [
            (CLIFixtures.path("png/libpng-testpngs/crashers/badcrc.png"), ["corrupt"], []),
            (CLIFixtures.path("jpeg/jpeg-decoder-crashtest/imagetestsuite/2183d39878e734cf79b62428b02fafb5.jpg"), ["corrupt", "truncated"], []),
            (CLIFixtures.path("jpeg/libjpeg-turbo/testorig12.jpg"), ["unsupported"], []),
            (CLIFixtures.path("jpeg/libjpeg-turbo/testorig.jpg"), ["tooLarge"], ["--max-pixels", "1000"]),
            (CLIFixtures.path("lottie/lottie-docs/bezier.json"), ["unsupported"], []),
            (dir.appendingPathComponent("missing.png").path, ["notFound"], []),
        ]
        for item in cases {
            let result = try await assetpipeAsync(["decode", item.path, "--json", "-o", dir.appendingPathComponent("x.pam").path] + item.extra)
            #expect(result.status == 1, "\(item.path)")
            let error = try #require(try jsonObject(result.stdout)["error"] as? [String: Any])
            #expect(item.codes.contains(error["code"] as? String ?? ""), "\(item.path): \(error)")
            #expect(!(error["message"] as? String ?? "").isEmpty)
            #expect(result.stderr.contains("assetpipe:"))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.pam").path))
        }
    }

    @Test func aDecodeThatFailsHalfWayLeavesTheOldFileAndNoTemporaryOne() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The header and the first rows decode; the data ends in the middle of the image.
        let bytes = try CLIFixtures.bytes("png/pngsuite/basn6a08.png")
        let truncated = dir.appendingPathComponent("cut.png")
        try Data(bytes[..<(bytes.count * 3 / 4)]).write(to: truncated)
        let out = dir.appendingPathComponent("out.ppm")
        try Data("old".utf8).write(to: out)
        let result = try await assetpipeAsync(["decode", truncated.path, "-o", out.path, "--json"])
        #expect(result.status == 1)
        #expect((try jsonObject(result.stdout)["error"] as? [String: Any])?["code"] as? String == "truncated")
        #expect(try Data(contentsOf: out) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["cut.png", "out.ppm"])

        // A good decode replaces it.
        #expect(try await assetpipeAsync(["decode", CLIFixtures.path("png/pngsuite/basn6a08.png"), "-o", out.path]).status == 0)
        #expect(try Data(contentsOf: out).prefix(9) == Data("P6\n32 32\n".utf8))
    }

    @Test func maxDimensionResizesEveryFormat() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rgba = dir.appendingPathComponent("small.rgba")
        let ppm = dir.appendingPathComponent("small.ppm")
        let image = CLIFixtures.path("jpeg/libjpeg-turbo/testorig.jpg")
        #expect(try await assetpipeAsync(["decode", image, "--max-dimension", "100", "-o", rgba.path]).status == 0)
        #expect(try await assetpipeAsync(["decode", image, "--max-dimension", "100", "-o", ppm.path]).status == 0)
        let raw = try Data(contentsOf: rgba)
        #expect(raw.count == 100 * 66 * 4)
        let (header, body) = Self.netpbm(try Data(contentsOf: ppm), headerLines: 3)
        #expect(header == ["P6", "100 66", "255"])
        #expect(body == Data(raw.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)))
    }

    @Test func badUsageExitsTwo() async throws {
        let image = CLIFixtures.path("png/pngsuite/basn6a08.png")
        #expect(try await assetpipeAsync(["decode", image, "--output", "/tmp/out.bmp"]).status == 2)
        #expect(try await assetpipeAsync(["decode", image, "--output", "/tmp/out"]).status == 2)
        #expect(try await assetpipeAsync(["decode", image, "--max-pixels", "0"]).status == 2)
        #expect(try await assetpipeAsync(["decode", image, "--max-dimension", "big"]).status == 2)
        #expect(try await assetpipeAsync(["decode"]).status == 2)
    }

    @Test func aURLLoadsThroughTheCache() async throws {
        let dir = try CLIFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = "jpeg/libjpeg-turbo/testorig.jpg"
        let reference = try CLIFixtures.pixelHash(image)
        try await withTestOrigin { origin in
            origin.setRoute("/p.jpg", .resource(TestResource(content: .bytes(try CLIFixtures.bytes(image)), headers: [("Cache-Control", "max-age=3600")])))
            origin.setRoute("/bad.png", .resource(TestResource(
                content: .bytes(try CLIFixtures.bytes("png/libpng-testpngs/crashers/badcrc.png")), headers: [("Cache-Control", "max-age=3600")])))
            let out = dir.appendingPathComponent("p.rgba").path
            for _ in 0..<2 {
                let result = try await assetpipeAsync(["decode", origin.url("/p.jpg"), "--cache-dir", dir.path, "-o", out, "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try jsonObject(result.stdout)["width"] as? Int == reference.width)
                #expect(CLIFixtures.sha256(try Data(contentsOf: URL(fileURLWithPath: out))) == reference.sha256)
            }
            #expect(origin.requestCount(path: "/p.jpg") == 1)  // the second run read the disk cache

            // Bad bytes: exit 1, and they do not stay in the cache as a good entry.
            for _ in 0..<2 {
                let bad = try await assetpipeAsync(["decode", origin.url("/bad.png"), "--cache-dir", dir.path, "--json"])
                #expect(bad.status == 1)
                #expect((try jsonObject(bad.stdout)["error"] as? [String: Any])?["code"] as? String == "corrupt")
            }
            #expect(origin.requestCount(path: "/bad.png") == 2)
            let stats = try await assetpipeAsync(["cache", "stats", "--cache-dir", dir.path, "--json"])
            #expect(try jsonObject(stats.stdout)["entries"] as? Int == 1)

            let missing = try await assetpipeAsync(["decode", origin.url("/none.png"), "--cache-dir", dir.path, "--json"])
            #expect(missing.status == 1)
            #expect(((try jsonObject(missing.stdout)["error"] as? [String: Any])?["code"] as? String)?.contains("404") == true)
        }
    }
}
