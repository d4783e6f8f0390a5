import AssetCodecs
import AssetLottie
import AssetLottieRender
import AssetStorage
import AssetTestSupport
import AssetWorkers
import Foundation
import Testing
@testable import AssetPipeline

@Suite("LottieUtil frames")
struct LottieUtilFrameTests {
    @Test func aFrameComesThroughTheLoaderAndTheMemoryCache() async throws {
        let json = try UtilTestSupport.fixture("lottie/lottie-docs/layers-solid.json")
        try await withTestOrigin { origin in
            origin.setRoute("/solid.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/solid.json")))
                let frame = try await util.frame(for: url, at: .frame(0))
                #expect(frame.width == 512 && frame.height == 512)
                #expect(frame.rgba(x: 10, y: 500) == SIMD4<UInt8>(255, 0, 0, 255))   // the file's "sc": "#ff0000"
                let small = try await util.frame(for: url, at: .progress(1), size: LottieFrameSize(width: 32))
                #expect(small.width == 32 && small.height == 32)
                #expect(util.parseCount == 1)
                #expect(util.renderCount == 2)
                #expect(origin.requestCount(path: "/solid.json") == 1)
                #expect(util.cachedAnimation(for: url) != nil)
            }
        }
    }

    @Test func framesRenderedInAssetpipeWorkersEqualTheOnesRenderedHere() async throws {
        let json = try UtilTestSupport.fixture("lottie/lottie-docs/layers-solid.json")
        let workers = WorkerPool(configuration: .init(executable: builtProduct("assetpipe"), arguments: ["worker"], count: 1))
        defer { workers.shutdown() }
        try await withTestOrigin { origin in
            origin.setRoute("/solid.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let here = LottieUtil(manager: manager)
                let there = LottieUtil(manager: manager, configuration: .init(renderWorkers: workers))
                let url = try #require(URL(string: origin.url("/solid.json")))
                for (time, size) in [(LottieFrameTime.frame(0), LottieFrameSize.natural), (.progress(1), LottieFrameSize(width: 40))] {
                    let local = try await here.frame(for: url, at: time, size: size)
                    let remote = try await there.frame(for: url, at: time, size: size)
                    #expect(remote.width == local.width && remote.height == local.height)
                    #expect(remote.pixels == local.pixels)
                }
                #expect(there.renderCount == 0)  // none in this process
                #expect(workers.statistics.done == 2)
                // refused here, before any worker sees it
                await #expect(throws: LottieRenderError.sizeTooLarge) {
                    try await there.frame(for: url, at: .frame(0), size: LottieFrameSize(width: 100_000))
                }
                #expect(workers.statistics.done + workers.statistics.failed == 2)
            }
        }
    }

    @Test func dotLottieAndTelegramStickersRender() async throws {
        let archive = try UtilTestSupport.fixture("lottie/lottie-ios/DotLottie/animation_external_image.lottie")
        let sticker = try UtilTestSupport.fixture("lottie/lottie-android/winners.tgs")
        try await withTestOrigin { origin in
            origin.setRoute("/a.lottie", .resource(TestResource(content: .bytes(archive), headers: freshForAnHour)))
            origin.setRoute("/s.tgs", .resource(TestResource(content: .bytes(sticker), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                let dotLottie = try await util.frame(for: try #require(URL(string: origin.url("/a.lottie"))), at: .frame(0),
                                                     size: LottieFrameSize(width: 100))
                #expect(dotLottie.width == 100 && dotLottie.height == 100)
                // The archive's image is in the frame: without it the frame is another.
                let document = try await util.document(for: try #require(URL(string: origin.url("/a.lottie"))))
                var bare = try #require(document.defaultEntry?.animation)
                bare.assets = []
                bare.layers = bare.layers?.filter { $0.typeCode != 2 }
                let withoutImage = try await util.frame(of: bare, at: .frame(0), size: LottieFrameSize(width: 100))
                #expect(dotLottie.pixels != withoutImage.pixels)
                let tgs = try await util.frame(for: try #require(URL(string: origin.url("/s.tgs"))), at: .progress(0.5))
                #expect(Self.visible(tgs) > 0)
                #expect(util.renderCount == 3)
            }
        }
    }

    @Test func hostileInputEndsAsATypedErrorBeforeRlottie() async throws {
        let json = try UtilTestSupport.fixture("lottie/lottie-docs/layers-solid.json")
        let text = String(decoding: json, as: UTF8.self)
        let huge = Array(text.replacingOccurrences(of: #""w": 512"#, with: #""w": 2000000000"#).utf8)
        try #require(huge != json)
        try await withTestOrigin { origin in
            origin.setRoute("/truncated.json", .resource(TestResource(content: .bytes(Array(json.prefix(60))), headers: freshForAnHour)))
            origin.setRoute("/huge.json", .resource(TestResource(content: .bytes(huge), headers: freshForAnHour)))
            origin.setRoute("/solid.json", .resource(TestResource(content: .bytes(json), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = LottieUtil(manager: manager)
                await #expect(throws: LottieError.unexpectedEnd) {
                    try await util.frame(for: try #require(URL(string: origin.url("/truncated.json"))), at: .frame(0))
                }
                await #expect(throws: LottieRenderError.sizeTooLarge) {
                    try await util.frame(for: try #require(URL(string: origin.url("/huge.json"))), at: .frame(0))
                }
                let solid = try #require(URL(string: origin.url("/solid.json")))
                await #expect(throws: LottieRenderError.sizeTooLarge) {
                    try await util.frame(for: solid, at: .frame(0), size: LottieFrameSize(width: 50_000, height: 50_000))
                }
                await #expect(throws: LottieRenderError.frameOutOfRange) { try await util.frame(for: solid, at: .frame(60)) }
                #expect(util.renderCount == 0)
            }
        }
    }

    static func visible(_ bitmap: Bitmap) -> Int {
        stride(from: 3, to: bitmap.pixels.count, by: 4).reduce(0) { $0 + (bitmap.pixels[$1] == 0 ? 0 : 1) }
    }
}
