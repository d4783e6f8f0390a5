import AssetCodecs
import AssetLoading
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

@Suite("ImageUtil.withSourceBytes")
struct ImageUtilSourceBytesTests {
    @Test func theBytesComeThroughTheCacheAndNothingIsMemoized() async throws {
        let jpeg = try UtilTestSupport.fixture(ImageUtilTests.jpegPath)
        try await withTestOrigin { origin in
            origin.setRoute("/p.jpg", .resource(TestResource(content: .bytes(jpeg), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/p.jpg")))
                for _ in 0..<2 {
                    let ppm = try await util.withSourceBytes(for: url) { data in
                        let reader = try ImageDecoder().rowReader(for: data, layout: .rgb8)
                        var bytes: [UInt8] = []
                        try PixelFileFormat.ppm.write(reader) { bytes += $0 }
                        return bytes
                    }
                    #expect(ppm.count == PixelFileFormat.ppm.byteCount(width: 227, height: 149))
                }
                #expect(origin.requestCount(path: "/p.jpg") == 1)  // the second came from disk
                #expect(manager.memoryCache(for: .image).count == 0)
                #expect(util.cachedImage(for: url) == nil)
            }
        }
    }

    @Test func aDataErrorDropsTheDiskEntryAndOtherErrorsDoNot() async throws {
        struct Elsewhere: Error {}
        let png = try UtilTestSupport.fixture(ImageUtilTests.pngPath)
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/a.png")))
                let key = AssetLoader.defaultCacheKey(for: url.absoluteString)
                await #expect(throws: Elsewhere.self) { try await util.withSourceBytes(for: url) { _ in throw Elsewhere() } }
                #expect(try manager.diskCache.data(forKey: key) == Data(png))
                await #expect(throws: CodecError.corrupt) {
                    try await util.withSourceBytes(for: url) { data in
                        _ = try ImageDecoder().rowReader(for: Data(data.prefix(20)) + Data(repeating: 0, count: 40))
                    }
                }
                #expect(try manager.diskCache.data(forKey: key) == nil)
                #expect(origin.requestCount(path: "/a.png") == 1)
            }
        }
    }
}
