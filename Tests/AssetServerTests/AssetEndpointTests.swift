import AssetStorage
import AssetTestSupport
import Foundation
import NIOHTTP1
import Testing

@Suite("GET /v1/asset")
struct AssetEndpointTests {
    static let png = (try? ServerHarness.fixture("png/pngsuite/basn6a08.png")) ?? []

    @Test func missThenMemoryHitWithTheOriginsFields() async throws {
        try await ServerHarness.with { harness in
            let lastModified = Date(timeIntervalSince1970: 1_700_000_000)
            harness.origin.setRoute("/a.png", .resource(TestResource(
                content: .bytes(Self.png), eTag: "\"v1\"", lastModified: lastModified,
                headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "image/png")])))
            let first = try await harness.send(harness.endpoint("asset", originPath: "/a.png"))
            #expect(first.status == 200)
            #expect(first.body == Self.png)
            #expect(first.header("Content-Type") == "image/png")
            #expect(first.header("ETag") == "\"v1\"")
            #expect(first.header("Last-Modified") == "Tue, 14 Nov 2023 22:13:20 GMT")
            #expect(first.header("Cache-Control") == "max-age=3600")
            #expect(first.header("Age") != nil)
            #expect(first.header("X-Assetpipe-Cache") == "miss")
            #expect(first.header("Content-Length") == String(Self.png.count))
            let second = try await harness.send(harness.endpoint("asset", originPath: "/a.png"))
            #expect(second.status == 200)
            #expect(second.body == Self.png)
            #expect(second.header("X-Assetpipe-Cache") == "memory")
            #expect(harness.origin.requestCount(path: "/a.png") == 1)
            #expect(harness.origin.requests(path: "/a.png").first?.header("User-Agent") == AssetPipelineVersion.productToken)
            #expect(first.header("Server") == AssetPipelineVersion.productToken)
            #expect(second.header("Server") == AssetPipelineVersion.productToken)
            let head = try await harness.send(harness.endpoint("asset", originPath: "/a.png"), method: .HEAD)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(Self.png.count))
        }
    }

    @Test func largeBodiesAreReadFromDiskAndStayOutOfMemory() async throws {
        try await ServerHarness.with({ configuration, _ in configuration.memoryAssetLimit = 1_000 }) { harness in
            harness.origin.setRoute("/big.bin", .resource(TestResource(content: .generated(length: 300_000), eTag: "\"b\"", headers: freshForAnHour)))
            let expected = TestContent.generatedBytes(0..<300_000)
            for cacheStatus in ["miss", "disk", "disk"] {
                let answer = try await harness.send(harness.endpoint("asset", originPath: "/big.bin"))
                #expect(answer.status == 200)
                #expect(answer.body == expected)
                #expect(answer.header("X-Assetpipe-Cache") == cacheStatus)
            }
            #expect(harness.origin.requestCount(path: "/big.bin") == 1)
            let range = try await harness.send(harness.endpoint("asset", originPath: "/big.bin"), headers: [("Range", "bytes=100000-100099")])
            #expect(range.status == 206)
            #expect(range.body == Array(expected[100_000..<100_100]))
            #expect(range.header("Content-Range") == "bytes 100000-100099/300000")
        }
    }

    @Test func staleAnswersAreRevalidatedAndAgeIsSent() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/s.txt", .resource(TestResource(
                content: .bytes(Array("hello".utf8)), eTag: "\"s1\"", headers: [("Cache-Control", "max-age=0")])))
            let first = try await harness.send(harness.endpoint("asset", originPath: "/s.txt"))
            #expect(first.status == 200)
            let second = try await harness.send(harness.endpoint("asset", originPath: "/s.txt"))
            #expect(second.status == 200)
            #expect(second.text == "hello")
            #expect(second.header("X-Assetpipe-Cache") == "revalidated")
            let requests = harness.origin.requests(path: "/s.txt")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"s1\"")
        }
    }

    @Test func clientRangesAndConditions() async throws {
        try await ServerHarness.with { harness in
            let body = Array("0123456789abcdefghij".utf8)
            let lastModified = Date(timeIntervalSince1970: 1_700_000_000)
            harness.origin.setRoute("/r.txt", .resource(TestResource(
                content: .bytes(body), eTag: "\"r1\"", lastModified: lastModified, headers: freshForAnHour)))
            let target = harness.endpoint("asset", originPath: "/r.txt")
            _ = try await harness.send(target)
            let cases: [(headers: [(String, String)], status: Int, body: String?, contentRange: String?)] = [
                ([("Range", "bytes=2-5")], 206, "2345", "bytes 2-5/20"),
                ([("Range", "bytes=15-")], 206, "fghij", "bytes 15-19/20"),
                ([("Range", "bytes=-3")], 206, "hij", "bytes 17-19/20"),
                ([("Range", "bytes=18-100")], 206, "ij", "bytes 18-19/20"),
                ([("Range", "bytes=20-")], 416, nil, "bytes */20"),
                ([("Range", "bytes=0-1,4-5")], 200, "0123456789abcdefghij", nil),
                ([("Range", "items=0-1")], 200, "0123456789abcdefghij", nil),
                ([("Range", "bytes=2-5"), ("If-Range", "\"r1\"")], 206, "2345", "bytes 2-5/20"),
                ([("Range", "bytes=2-5"), ("If-Range", "\"old\"")], 200, "0123456789abcdefghij", nil),
                ([("Range", "bytes=2-5"), ("If-Range", "Tue, 14 Nov 2023 22:13:20 GMT")], 206, "2345", "bytes 2-5/20"),
                ([("If-None-Match", "\"r1\"")], 304, "", nil),
                ([("If-None-Match", "W/\"r1\"")], 304, "", nil),
                ([("If-None-Match", "\"x\", \"r1\"")], 304, "", nil),
                ([("If-None-Match", "*")], 304, "", nil),
                ([("If-None-Match", "\"x\"")], 200, "0123456789abcdefghij", nil),
                ([("If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT")], 304, "", nil),
                ([("If-Modified-Since", "Tue, 14 Nov 2023 22:13:19 GMT")], 200, "0123456789abcdefghij", nil),
                ([("If-None-Match", "\"x\""), ("If-Modified-Since", "Tue, 14 Nov 2023 22:13:20 GMT")], 200, "0123456789abcdefghij", nil),
                ([("If-Match", "\"x\"")], 412, "", nil),
                ([("If-Match", "\"r1\"")], 200, "0123456789abcdefghij", nil),
                ([("If-Unmodified-Since", "Tue, 14 Nov 2023 22:13:19 GMT")], 412, "", nil),
            ]
            for item in cases {
                let answer = try await harness.send(target, headers: item.headers)
                #expect(answer.status == item.status, "\(item.headers)")
                if let body = item.body { #expect(answer.text == body, "\(item.headers)") }
                #expect(answer.header("Content-Range") == item.contentRange, "\(item.headers)")
                if item.status == 304 { #expect(answer.header("ETag") == "\"r1\"") }
            }
            #expect(harness.origin.requestCount(path: "/r.txt") == 1)
        }
    }

    @Test func videoRangesGoThroughTheChunkStore() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10) { harness in
            let length = 2_000_000
            harness.origin.setRoute("/v.mp4", .resource(TestResource(content: .generated(length: length), eTag: "\"v\"", headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"), headers: [("Range", "bytes=1000000-1000999")])
            #expect(answer.status == 206)
            #expect(answer.body == TestContent.generatedBytes(1_000_000..<1_001_000))
            #expect(answer.header("Content-Range") == "bytes 1000000-1000999/2000000")
            // one chunk fetched, not the whole file
            let requests = harness.origin.requests(path: "/v.mp4")
            #expect(requests.count == 1)
            #expect(requests[0].header("Range") == "bytes=983040-1048575")
            let again = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"), headers: [("Range", "bytes=1000100-1000199")])
            #expect(again.body == TestContent.generatedBytes(1_000_100..<1_000_200))
            #expect(again.header("X-Assetpipe-Cache") == "chunks")
            #expect(harness.origin.requestCount(path: "/v.mp4") == 1)
            let whole = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"))
            #expect(whole.status == 200)
            #expect(whole.body == TestContent.generatedBytes(0..<length))
            let suffix = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"), headers: [("Range", "bytes=-10")])
            #expect(suffix.body == TestContent.generatedBytes((length - 10)..<length))
            let past = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"), headers: [("Range", "bytes=3000000-")])
            #expect(past.status == 416)
            #expect(past.header("Content-Range") == "bytes */2000000")
            let notModified = try await harness.send(harness.endpoint("asset", originPath: "/v.mp4"), headers: [("If-None-Match", "\"v\"")])
            #expect(notModified.status == 304)
        }
    }

    @Test func assetsOverTheLargeThresholdAreServedAsChunks() async throws {
        try await ServerHarness.with(chunkSize: 64 << 10, { configuration, _ in configuration.largeAssetThreshold = 100_000 }) { harness in
            harness.origin.setRoute("/huge.bin", .resource(TestResource(content: .generated(length: 1_000_000), eTag: "\"h\"", headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("asset", originPath: "/huge.bin"), headers: [("Range", "bytes=500000-500009")])
            #expect(answer.status == 206)
            #expect(answer.body == TestContent.generatedBytes(500_000..<500_010))
            let ranged = harness.origin.requests(path: "/huge.bin").compactMap { $0.header("Range") }
            #expect(ranged == ["bytes=458752-524287"])
            // known to be large now: the next range goes straight to the chunk store, no whole-body GET first
            let next = try await harness.send(harness.endpoint("asset", originPath: "/huge.bin"), headers: [("Range", "bytes=900000-900009")])
            #expect(next.body == TestContent.generatedBytes(900_000..<900_010))
            let requests = harness.origin.requests(path: "/huge.bin")
            #expect(requests.filter { $0.header("Range") == nil }.count == 1)
            #expect(requests.compactMap { $0.header("Range") } == ["bytes=458752-524287", "bytes=851968-917503"])
        }
    }

    @Test func badRequestsAreJSONErrors() async throws {
        try await ServerHarness.with { harness in
            harness.origin.setRoute("/gone", .response(TestResponse(status: 404, body: .text("no"))))
            let cases: [(target: String, status: Int, code: String)] = [
                ("/v1/asset", 400, "missing_parameter"),
                ("/v1/asset?url=", 400, "missing_parameter"),
                ("/v1/asset?url=not-a-url", 400, "invalid_parameter"),
                ("/v1/asset?url=file%3A%2F%2F%2Fetc%2Fpasswd", 400, "unsupported_scheme"),
                ("/v1/asset?url=ftp%3A%2F%2Fexample.org%2Fa", 400, "unsupported_scheme"),
                (harness.endpoint("asset", originPath: "/a", "&kind=bogus"), 400, "invalid_parameter"),
                (harness.endpoint("asset", originPath: "/gone"), 404, "origin_status"),
                ("/v1/nothing", 404, "not_found"),
                ("/elsewhere", 404, "not_found"),
                ("/v1/asset?url=" + String(repeating: "a", count: 9_000), 414, "target_too_long"),
            ]
            for item in cases {
                let answer = try await harness.send(item.target)
                #expect(answer.status == item.status, "\(item.target.prefix(80))")
                #expect(answer.errorCode == item.code, "\(item.target.prefix(80))")
                #expect(answer.header("Content-Type") == "application/json")
                #expect(!answer.text.contains(harness.directory.path))
            }
            let post = try await harness.send(harness.endpoint("asset", originPath: "/a"), method: .POST)
            #expect(post.status == 405)
            #expect(post.errorCode == "method_not_allowed")
        }
    }
}
