import AssetTestSupport
import Crypto
import Foundation
import NIOHTTP1
import Testing

@Suite("GET /v1/image and /v1/lottie")
struct DecodedEndpointTests {
    static func sha256(_ bytes: some Collection<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// The reference hash of `path`'s RGBA pixels (Fixtures/image-reference-hashes.tsv).
    static func referenceHash(_ path: String) throws -> String {
        let text = try String(contentsOf: ServerHarness.fixtures.appendingPathComponent("image-reference-hashes.tsv"), encoding: .utf8)
        let row = text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            .first { $0.count > 5 && $0[0] == path && $0[2] == "1" }
        return try #require(row?[5])
    }

    @Test(arguments: ["png/pngsuite/basn6a08.png", "png/pngsuite/basn3p04.png", "jpeg/libjpeg-turbo/testorig.jpg"])
    func decodesToTheReferencePixels(_ path: String) async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/img", .resource(TestResource(content: .bytes(try ServerHarness.fixture(path)), headers: freshForAnHour)))
            let pam = try await harness.send(harness.endpoint("image", originPath: "/img"))
            #expect(pam.status == 200)
            #expect(pam.header("Content-Type") == "image/x-portable-arbitrarymap")
            let width = try #require(pam.header("X-Image-Width").flatMap(Int.init))
            let height = try #require(pam.header("X-Image-Height").flatMap(Int.init))
            #expect(pam.header("X-Image-Channels") == "4")
            let header = "P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
            #expect(pam.body.starts(with: Array(header.utf8)))
            let pixels = pam.body.dropFirst(header.utf8.count)
            #expect(pixels.count == width * height * 4)
            #expect(Self.sha256(pixels) == (try Self.referenceHash(path)))

            let rgba = try await harness.send(harness.endpoint("image", originPath: "/img", "&format=rgba"))
            #expect(Array(rgba.body) == Array(pixels))
            let ppm = try await harness.send(harness.endpoint("image", originPath: "/img", "&format=ppm"))
            #expect(ppm.header("X-Image-Channels") == "3")
            let ppmHeader = Array("P6\n\(width) \(height)\n255\n".utf8)
            #expect(ppm.body.starts(with: ppmHeader))
            let rgb = Array(ppm.body.dropFirst(ppmHeader.count))
            let dropped = Array(pixels).enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            #expect(rgb == dropped)
            // one download for the three formats, one decode
            #expect(harness.origin.requestCount(path: "/img") == 1)
        }
    }

    @Test func downscalesAndRefusesOversizedImages() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/j", .resource(TestResource(content: .bytes(try ServerHarness.fixture("jpeg/libjpeg-turbo/testorig.jpg")), headers: freshForAnHour)))
            let small = try await harness.send(harness.endpoint("image", originPath: "/j", "&maxDimension=100"))
            #expect(small.status == 200)
            let width = try #require(small.header("X-Image-Width").flatMap(Int.init))
            let height = try #require(small.header("X-Image-Height").flatMap(Int.init))
            #expect(max(width, height) <= 100)
            #expect(small.header("X-Image-Source-Width") == "227")
            let refused = try await harness.send(harness.endpoint("image", originPath: "/j", "&maxPixels=1000"))
            #expect(refused.status == 422)
            #expect(refused.errorCode == "undecodable")
            let bad = try await harness.send(harness.endpoint("image", originPath: "/j", "&format=bmp"))
            #expect(bad.status == 400)
        }
    }

    @Test func corruptImagesAreA422AndAreDroppedFromTheCache() async throws {
        try await ServerHarness.with { harness in
            var bytes = try ServerHarness.fixture("png/pngsuite/basn6a08.png")
            bytes.removeLast(bytes.count / 2)
            harness.origin.setRoute("/broken.png", .resource(TestResource(content: .bytes(bytes), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("image", originPath: "/broken.png"))
            #expect(answer.status == 422)
            let error = try #require(try answer.json["error"] as? [String: Any])
            #expect(error["code"] as? String == "undecodable")
            #expect(["truncated", "corrupt"].contains(error["detail"] as? String))
            _ = try await harness.send(harness.endpoint("image", originPath: "/broken.png"))
            #expect(harness.origin.requestCount(path: "/broken.png") == 2)
        }
    }

    @Test func lottieFactsAreTheCommandsAndStrictProblemsHavePaths() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/a.json", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("lottie/lottie-docs/bezier.json")), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("lottie", originPath: "/a.json"))
            #expect(answer.status == 200)
            #expect(answer.text == "{\"assetCount\":0,\"durationSeconds\":3,\"frameRate\":60,\"height\":512,\"inPoint\":0,\"layerCount\":1,\"name\":\"Animation\",\"outPoint\":180,\"version\":\"5.5.7\",\"width\":512}\n")
            harness.origin.setRoute("/bad.json", .resource(TestResource(
                content: .bytes(try ServerHarness.fixture("lottie/lottie-spec/invalid/malformed-embedded-image.json")), headers: freshForAnHour)))
            let lenient = try await harness.send(harness.endpoint("lottie", originPath: "/bad.json"))
            #expect(lenient.status == 200)
            let strict = try await harness.send(harness.endpoint("lottie", originPath: "/bad.json", "&strict=1"))
            #expect(strict.status == 422)
            let error = try #require(try strict.json["error"] as? [String: Any])
            let problems = try #require(error["problems"] as? [[String: Any]])
            #expect(!problems.isEmpty)
            #expect(problems.allSatisfy { ($0["path"] as? String)?.hasPrefix("$") == true })
            harness.origin.setRoute("/junk.json", .resource(TestResource(content: .bytes(Array("{\"v\": [".utf8)), headers: freshForAnHour)))
            let junk = try await harness.send(harness.endpoint("lottie", originPath: "/junk.json"))
            #expect(junk.status == 422)
        }
    }
}
