import AssetLoading
import AssetLottie
import AssetStorage
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

@Suite("LottieUtil")
struct LottieUtilTests {
    static let jsonPath = "lottie/lottie-docs/bezier.json"
    static let multiplePath = "lottie/lottie-ios/DotLottie/multiple_animations.lottie"

    /// The reference facts of a fixture (Fixtures/lottie/reference.tsv), one row per animation.
    static func reference(_ path: String) throws -> [[String: String]] {
        try UtilTestSupport.tsv("lottie/reference.tsv").filter { "lottie/" + $0["path"]! == path }
    }

    static func expectFacts(_ animation: LottieAnimation, _ row: [String: String]) {
        #expect(animation.version == row["version"])
        #expect(animation.frameRate == Double(row["fr"]!))
        #expect(animation.inPoint == Double(row["ip"]!))
        #expect(animation.outPoint == Double(row["op"]!))
        #expect(animation.width == Double(row["w"]!))
        #expect(animation.height == Double(row["h"]!))
        #expect(animation.layerCount == Int(row["layers"]!))
    }

    @Test func aMissLoadsAndParsesThenMemoryAnswers() async throws {
        let json = try UtilTestSupport.fixture(Self.jsonPath)
        let row = try #require(try Self.reference(Self.jsonPath).first)
        try await withTestOrigin { origin in
            origin.setRoute("/a.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/a.json")))
                #expect(util.cachedAnimation(for: url) == nil)
                let animation = try await util.animation(for: url)
                Self.expectFacts(animation, row)
                #expect(util.parseCount == 1)
                #expect(origin.requestCount(path: "/a.json") == 1)
                #expect(try manager.diskCache.data(forKey: AssetLoader.defaultCacheKey(for: url.absoluteString)) == Data(json))
                // The memory cost is the estimate: JSON bytes (no images here) times the measured ratio, plus 1 KiB.
                #expect(manager.memoryCache(for: .lottie).totalCost == json.count * LottieUtil.modelBytesPerJSONByte + 1024)

                #expect(try await util.animation(for: url) == animation)
                #expect(util.cachedAnimation(for: url) == animation)
                #expect(try await util.document(for: url).animations.count == 1)
                #expect(util.parseCount == 1)
                #expect(origin.requestCount(path: "/a.json") == 1)

                // strict is part of the key: a valid file parses once more, strictly, from disk.
                #expect(util.memoryKey(for: url) != util.memoryKey(for: url, options: .init(strict: true)))
                #expect(try await util.animation(for: url, options: .init(strict: true)) == animation)
                #expect(util.parseCount == 2)
                #expect(origin.requestCount(path: "/a.json") == 1)
            }
        }
    }

    @Test func concurrentRequestsShareOneDownloadAndOneParse() async throws {
        let json = try UtilTestSupport.fixture(Self.jsonPath)
        let gate = TestGate()
        try await withTestOrigin { origin in
            origin.setRoute("/b.json", .response(TestResponse(headers: freshForAnHour, body: .bytes(json), gate: gate)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/b.json")))
                let options = LottieUtil.Options(keepInMemory: false)
                try await withThrowingTaskGroup(of: LottieAnimation.self) { group in
                    for _ in 0..<12 { group.addTask { try await util.animation(for: url, options: options) } }
                    try await UtilTestSupport.until("twelve callers wait") { util.loads.work.waiterCount == 12 }
                    gate.open()
                    var results: [LottieAnimation] = []
                    for try await animation in group { results.append(animation) }
                    #expect(results.count == 12)
                    #expect(results.allSatisfy { $0 == results[0] })
                }
                #expect(util.parseCount == 1)
                #expect(origin.requestCount(path: "/b.json") == 1)
                #expect(manager.memoryCache(for: .lottie).count == 0)
            }
        }
    }

    @Test func badBytesFailEveryWaiterAreNotKeptAndLeaveTheDisk() async throws {
        let json = try UtilTestSupport.fixture(Self.jsonPath)
        let truncated = Array(json.prefix(json.count / 2))
        let gate = TestGate()
        try await withTestOrigin { origin in
            origin.setRoute("/c.json", .response(TestResponse(headers: freshForAnHour, body: .bytes(truncated), gate: gate)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/c.json")))
                let callers = (0..<4).map { _ in Task { try await util.animation(for: url) } }
                try await UtilTestSupport.until("four callers wait") { util.loads.work.waiterCount == 4 }
                gate.open()
                for caller in callers {
                    await #expect(throws: LottieError.unexpectedEnd) { try await caller.value }
                }
                #expect(util.parseCount == 1)
                #expect(util.cachedAnimation(for: url) == nil)
                #expect(try manager.diskCache.data(forKey: AssetLoader.defaultCacheKey(for: url.absoluteString)) == nil)
                origin.setRoute("/c.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
                _ = try await util.animation(for: url)
                #expect(origin.requestCount(path: "/c.json") == 2)
                #expect(util.parseCount == 2)
            }
        }
    }

    @Test func strictProblemsAreReportedAndTheBytesStay() async throws {
        let path = "lottie/lottie-spec/invalid/malformed-embedded-image.json"
        let json = try UtilTestSupport.fixture(path)
        try await withTestOrigin { origin in
            origin.setRoute("/d.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/d.json")))
                let error = await #expect(throws: LottieError.validationFailed) {
                    try await util.animation(for: url, options: .init(strict: true))
                }
                #expect(error?.problems.isEmpty == false)
                #expect(error?.problems.allSatisfy { $0.path.hasPrefix("$.") } == true)
                // A readable animation that fails strict validation keeps its bytes; lenient reads it.
                #expect(try manager.diskCache.data(forKey: AssetLoader.defaultCacheKey(for: url.absoluteString)) != nil)
                _ = try await util.animation(for: url)
                #expect(origin.requestCount(path: "/d.json") == 1)
            }
        }
    }

    @Test func aDotLottieGivesEveryAnimationAndTheDefaultOne() async throws {
        let archive = try UtilTestSupport.fixture(Self.multiplePath)
        let rows = try Self.reference(Self.multiplePath)
        #expect(rows.count == 3)
        try await withTestOrigin { origin in
            origin.setRoute("/m.lottie", .resource(TestResource(content: .bytes(archive), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/m.lottie")))
                let document = try await util.document(for: url)
                #expect(document.isDotLottie)
                #expect(document.animations.map(\.id) == rows.map { $0["id"] })
                for (entry, row) in zip(document.animations, rows) { Self.expectFacts(entry.animation, row) }
                // No activeAnimationId in this manifest: the default is the first listed.
                #expect(try await util.animation(for: url) == document.animations[0].animation)
                #expect(util.parseCount == 1)
                #expect(manager.memoryCache(for: .lottie).totalCost == LottieUtil.estimatedCost(of: document))
                #expect(LottieUtil.estimatedCost(of: document) > archive.count)
            }
        }
    }

    @Test func embeddedImagesCostTheirLengthAndStructureCostsMore() throws {
        let path = "lottie/lottie-ios/Nonanimating/base64Test.json"  // one large data: URL
        let data = Data(try UtilTestSupport.fixture(path))
        let document = try LottieUtil.read(data)
        let images = LottieUtil.embeddedImageBytes(of: document.animations[0].animation)
        #expect(images > data.count / 2)
        #expect(LottieUtil.estimatedCost(of: document)
            == (data.count - images) * LottieUtil.modelBytesPerJSONByte + images + 1024)
    }

    @Test func notKeepingInMemoryStillParsesAndReadsLocalBytes() async throws {
        let json = try UtilTestSupport.fixture(Self.jsonPath)
        try await withTestOrigin { origin in
            origin.setRoute("/e.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/e.json")))
                let animation = try await util.animation(for: url, options: .init(keepInMemory: false))
                #expect(util.cachedAnimation(for: url) == nil)
                #expect(manager.memoryCache(for: .lottie).count == 0)
                // Local bytes: the same model, with no cache involved.
                #expect(try await util.read(Data(json)).animations[0].animation == animation)
                #expect(try LottieUtil.read(Data(json)).animations[0].animation == animation)
            }
        }
    }
}
