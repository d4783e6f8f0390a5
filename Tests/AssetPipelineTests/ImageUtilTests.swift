import AssetCodecs
import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import NIOPosix
import Testing
@testable import AssetPipeline

@Suite("ImageUtil")
struct ImageUtilTests {
    static let jpegPath = "jpeg/libjpeg-turbo/testorig.jpg"  // 227 x 149
    static let pngPath = "png/pngsuite/basn6a08.png"  // 32 x 32 RGBA

    @Test func aMissLoadsAndDecodesThenMemoryAnswers() async throws {
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"1\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/photo.jpg")))
                #expect(util.cachedImage(for: url) == nil)

                let bitmap = try await util.image(for: url)
                #expect(bitmap.width == 227 && bitmap.height == 149)
                #expect(UtilTestSupport.sha256(bitmap.pixels) == (try UtilTestSupport.referenceHash(Self.jpegPath)))
                #expect(origin.requestCount(path: "/photo.jpg") == 1)
                #expect(util.decodeCount == 1)
                // The original bytes are on disk under the cache key; the bitmap is in memory (cost = bytes).
                let key = AssetLoader.defaultCacheKey(for: url.absoluteString)
                #expect(try manager.diskCache.data(forKey: key) == Data(jpeg))
                #expect(manager.memoryCache(for: .image).totalCost == bitmap.cost)

                #expect(try await util.image(for: url) == bitmap)
                #expect(util.cachedImage(for: url) == bitmap)
                #expect(util.decodeCount == 1)
                #expect(origin.requestCount(path: "/photo.jpg") == 1)

                // Memory gone: the bytes come from disk (fresh, no request) and are decoded again.
                manager.trimMemory(toFraction: 0)
                #expect(try await util.image(for: url) == bitmap)
                #expect(util.decodeCount == 2)
                #expect(origin.requestCount(path: "/photo.jpg") == 1)
            }
        }
    }

    @Test func concurrentRequestsShareOneDownloadAndOneDecode() async throws {
        let png = try UtilTestSupport.fixture(Self.pngPath)
        let gate = TestGate()
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .response(TestResponse(headers: freshForAnHour, body: .bytes(png), gate: gate)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/a.png")))
                // Not kept in memory: a caller that came late would decode again, so one decode proves sharing.
                let options = ImageUtil.Options(keepInMemory: false)
                try await withThrowingTaskGroup(of: Bitmap.self) { group in
                    for _ in 0..<12 { group.addTask { try await util.image(for: url, options: options) } }
                    try await UtilTestSupport.until("twelve callers wait") { util.loads.work.waiterCount == 12 }
                    await origin.waitForRequests(path: "/a.png", count: 1)
                    gate.open()
                    var results: [Bitmap] = []
                    for try await bitmap in group { results.append(bitmap) }
                    #expect(results.count == 12)
                    #expect(Set(results).count == 1)
                }
                #expect(util.decodeCount == 1)
                #expect(origin.requestCount(path: "/a.png") == 1)
                #expect(manager.memoryCache(for: .image).count == 0)
            }
        }
    }

    @Test func badBytesFailEveryWaiterAreNotKeptAndLeaveTheDisk() async throws {
        let corrupt = try UtilTestSupport.fixture("png/libpng-testpngs/crashers/badcrc.png")
        let good = try UtilTestSupport.fixture(Self.pngPath)
        let gate = TestGate()
        try await withTestOrigin { origin in
            origin.setRoute("/b.png", .response(TestResponse(headers: freshForAnHour, body: .bytes(corrupt), gate: gate)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/b.png")))
                let key = AssetLoader.defaultCacheKey(for: url.absoluteString)
                let callers = (0..<4).map { _ in Task { try await util.image(for: url) } }
                try await UtilTestSupport.until("four callers wait") { util.loads.work.waiterCount == 4 }
                gate.open()
                for caller in callers {
                    await #expect(throws: CodecError.corrupt) { try await caller.value }
                }
                #expect(util.decodeCount == 0 || util.decodeCount == 1)  // the header may already fail
                #expect(origin.requestCount(path: "/b.png") == 1)
                #expect(util.cachedImage(for: url) == nil)
                // The fresh-for-an-hour entry was removed, so the next request goes to the origin again.
                #expect(try manager.diskCache.data(forKey: key) == nil)
                origin.setRoute("/b.png", .resource(TestResource(content: .bytes(good), headers: freshForAnHour)))
                let bitmap = try await util.image(for: url)
                #expect(UtilTestSupport.sha256(bitmap.pixels) == (try UtilTestSupport.referenceHash(Self.pngPath)))
                #expect(origin.requestCount(path: "/b.png") == 2)
            }
        }
    }

    @Test func decodingOptionsAndCustomKeysArePartOfTheKey() async throws {
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        try await withTestOrigin { origin in
            origin.setRoute("/c.jpg", .resource(TestResource(content: .bytes(jpeg), headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/c.jpg")))
                let full = try await util.image(for: url)
                let small = ImageUtil.Options(maxDimension: 114)
                #expect(util.memoryKey(for: url) != util.memoryKey(for: url, options: small))
                let scaled = try await util.image(for: url, options: small)
                // 227 x 149 at most 114 wide: libjpeg-turbo's 1/2 scale, exactly djpeg -scale 1/2.
                #expect(scaled.width == 114 && scaled.height == 75)
                #expect(UtilTestSupport.sha256(scaled.pixels) == (try UtilTestSupport.referenceHash(Self.jpegPath, scale: 2)))
                #expect(full.width == 227)
                #expect(util.decodeCount == 2)
                #expect(origin.requestCount(path: "/c.jpg") == 1)  // the second decode read the disk
                #expect(util.cachedImage(for: url, options: small) == scaled)
                #expect(util.cachedImage(for: url) == full)

                // A pixel budget is part of the key too, and is checked before decoding.
                await #expect(throws: CodecError.tooLarge) {
                    try await util.image(for: url, options: .init(pixelBudget: 1000))
                }

                // One custom key for two signed URLs: the second is a memory hit.
                let signed1 = try #require(URL(string: origin.url("/c.jpg?sig=1")))
                let signed2 = try #require(URL(string: origin.url("/c.jpg?sig=2")))
                let keyed = ImageUtil.Options(cacheKey: "photo-c")
                let decodes = util.decodeCount
                let requests = origin.requestCount(path: "/c.jpg")
                #expect(try await util.image(for: signed1, options: keyed) == full)
                #expect(try await util.image(for: signed2, options: keyed) == full)
                #expect(util.decodeCount == decodes + 1)
                #expect(origin.requestCount(path: "/c.jpg") == requests + 1)
            }
        }
    }

    @Test func decodesInFlightStayWithinTheByteBudget() async throws {
        let png = try UtilTestSupport.fixture(Self.pngPath)
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        try await UtilTestSupport.withManager { manager in
            // Room for two JPEG decodes (input + 227 x 149 x 4 each) but not three.
            let oneJPEG = jpeg.count + 227 * 149 * 4
            let util = ImageUtil(manager: manager, configuration: .init(decodeBudget: oneJPEG * 2 + oneJPEG / 2, decodePool: pool))
            try await withThrowingTaskGroup(of: Bitmap.self) { group in
                for index in 0..<24 {
                    let data = Data(index.isMultiple(of: 3) ? png : jpeg)
                    group.addTask { try await util.decode(data).bitmap }
                }
                for try await bitmap in group { #expect(bitmap.width == 32 || bitmap.width == 227) }
            }
            #expect(util.decodeCount == 24)
            #expect(util.decodeBudget.peak <= util.decodeBudget.capacity)
            #expect(util.decodeBudget.peak >= oneJPEG)
            #expect(util.decodeBudget.held == 0)

            // An image larger than the whole budget still decodes: alone, holding the whole budget.
            let tiny = ImageUtil(manager: manager, configuration: .init(decodeBudget: 1024, decodePool: pool))
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await tiny.decode(Data(jpeg)).bitmap.width } }
                for try await width in group { #expect(width == 227) }
            }
            #expect(tiny.decodeBudget.peak == 1024)
        }
    }

    @Test func theEstimateCoversInputFullPixelsAndOutput() throws {
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        let decoder = ImageDecoder()
        let header = try decoder.header(of: jpeg)
        #expect(ImageUtil.estimatedDecodeBytes(inputBytes: jpeg.count, header: header, decoder: decoder)
            == jpeg.count + 227 * 149 * 4)
        let scaling = ImageDecoder(configuration: .init(maxDimension: 100))
        let output = scaling.outputSize(for: header)
        #expect(ImageUtil.estimatedDecodeBytes(inputBytes: jpeg.count, header: header, decoder: scaling)
            == jpeg.count + 227 * 149 * 4 + output.width * output.height * 4)
    }

    @Test func theDefaultKeyFastPathAgreesWithTheLoader() {
        let urls = [
            "http://example.com/a.png", "https://example.com/a/b.jpg?x=1&y=%20z", "http://127.0.0.1:8080/p",
            "http://Example.com/a.png", "HTTP://example.com/a", "http://example.com/a#frag", "http://example.com",
            "http://user:pw@example.com/a", "http://example.com/a b", "http://[::1]:80/x", "http://example.com/ü.png",
            "https://example.com/A/B?Q=R", "http://example.com/%7Euser", "ftp://example.com/a", "http:/example.com",
            "http://example.com?q", "http://example.com/a?b#", "http://EXAMPLE.com:99/x?y", "http://example.com/a|b",
        ]
        for url in urls {
            #expect(CacheKeys.key(for: url, custom: nil) == AssetLoader.defaultCacheKey(for: url), "\(url)")
        }
        #expect(CacheKeys.key(for: "http://Example.com/x", custom: "mine") == "mine")
        #expect(CacheKeys.isNormalized("https://example.com/a?b=1"))
        #expect(!CacheKeys.isNormalized("https://Example.com/a"))
    }
}
