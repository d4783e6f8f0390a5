import AssetCodecs
import AssetImaging
import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

/// `ImageUtil.variant(for:transform:)` against a real origin on loopback.
@Suite("ImageUtil variants")
struct ImageVariantTests {
    static let jpegPath = "jpeg/libjpeg-turbo/testorig.jpg"  // 227 x 149
    static let rotatedPath = "imaging/orientation-6.jpg"  // stored 144 x 224, shown 224 x 144
    static let alphaPath = "png/pngsuite/basn6a08.png"  // 32 x 32 RGBA

    @Test func aSourceEntryDroppedBetweenNamingAndMakingIsLoadedAgain() async throws {
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        try await withTestOrigin { origin in
            origin.setRoute("/d.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"d\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/d.jpg")))
                let named = try await util.variantRequest(for: url, transform: try ImageTransform(parsing: "w=50,format=png"))
                // what a concurrent transform of another size does when the bytes are bad: drops the entry
                _ = try manager.diskCache.remove(key: named.source.cacheKey)
                let variant = try await util.variant(for: named)
                #expect(variant.origin == .transformed)
                #expect(variant.width == 50)
                #expect(origin.requestCount(path: "/d.jpg") == 2)
                // a source that changed meanwhile is not made under the old version's key
                let stale = try await util.variantRequest(for: url, transform: try ImageTransform(parsing: "w=51,format=png"))
                _ = try manager.diskCache.remove(key: stale.source.cacheKey)
                origin.setRoute("/d.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"e\"", headers: freshForAnHour)))
                await #expect(throws: LoaderError.notCached) { try await util.variant(for: stale) }
            }
        }
    }

    @Test func aVariantIsMadeOnceThenAnsweredFromMemoryThenFromDisk() async throws {
        let jpeg = try UtilTestSupport.fixture(Self.rotatedPath)
        try await withTestOrigin { origin in
            origin.setRoute("/r.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"1\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/r.jpg")))
                let transform = try ImageTransform(parsing: "w=112,format=webp,q=70")

                let first = try await util.variant(for: url, transform: transform)
                #expect(first.origin == .transformed)
                #expect((first.format, first.width, first.height) == (.webp, 112, 72))  // upright: 224 x 144 shown
                #expect(ImageFormat(sniffing: first.data) == .webp)
                #expect(first.sourceValidator == "etag:\"1\"")
                #expect(util.transformCount == 1)

                let second = try await util.variant(for: url, transform: transform)
                #expect(second.origin == .memory)
                #expect(second.data == first.data)

                manager.trimMemory(toFraction: 0)
                let third = try await util.variant(for: url, transform: transform)
                #expect(third.origin == .disk)
                #expect((third.format, third.width, third.height, third.data) == (.webp, 112, 72, first.data))
                #expect(util.transformCount == 1)
                #expect(origin.requestCount(path: "/r.jpg") == 1)

                // The derived entry sits beside the source's, under the variant's key.
                let stored = try #require(try manager.diskCache.metadata(forKey: first.key))
                #expect(stored.contentType == "image/webp;w=112;h=72")
                #expect(stored.kind == .image)
            }
        }
    }

    @Test func aChangedSourceNeverServesAnOldVariant() async throws {
        let first = try UtilTestSupport.fixture(Self.jpegPath)
        let second = try UtilTestSupport.fixture(Self.rotatedPath)
        try await withTestOrigin { origin in
            // Always stale: every variant request revalidates the source.
            let stale = [("Cache-Control", "no-cache")]
            origin.setRoute("/s.jpg", .resource(TestResource(content: .bytes(first), eTag: "\"a\"", headers: stale)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/s.jpg")))
                let transform = ImageTransform(width: 100, format: .format(.png))
                let before = try await util.variant(for: url, transform: transform)
                #expect((before.width, before.height) == (100, 66))
                // Revalidated with a 304: the same variant, from memory.
                #expect(try await util.variant(for: url, transform: transform).origin == .memory)

                origin.setRoute("/s.jpg", .resource(TestResource(content: .bytes(second), eTag: "\"b\"", headers: stale)))
                let after = try await util.variant(for: url, transform: transform)
                #expect(after.origin == .transformed)
                #expect(after.sourceValidator == "etag:\"b\"")
                #expect((after.width, after.height) == (100, 64))
                #expect(after.key != before.key)
                #expect(util.transformCount == 2)
            }
        }
    }

    @Test func concurrentRequestsShareOneDownloadAndOneTransform() async throws {
        let jpeg = try UtilTestSupport.fixture(Self.jpegPath)
        let gate = TestGate()
        try await withTestOrigin { origin in
            origin.setRoute("/c.jpg", .response(TestResponse(headers: freshForAnHour + [("ETag", "\"c\"")], body: .bytes(jpeg), gate: gate)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/c.jpg")))
                let transform = ImageTransform(width: 64, format: .format(.jpeg))
                try await withThrowingTaskGroup(of: ImageVariant.self) { group in
                    for _ in 0..<20 { group.addTask { try await util.variant(for: url, transform: transform) } }
                    await origin.waitForRequests(path: "/c.jpg", count: 1)
                    gate.open()
                    var variants: [ImageVariant] = []
                    for try await variant in group { variants.append(variant) }
                    #expect(Set(variants.map(\.data)).count == 1)
                }
                #expect(util.transformCount == 1)
                #expect(origin.requestCount(path: "/c.jpg") == 1)
            }
        }
    }

    @Test func autoPicksByAcceptAndAlphaAndKeepsEachChoiceApart() async throws {
        let png = try UtilTestSupport.fixture(Self.alphaPath)
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"p\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/a.png")))
                let transform = ImageTransform(width: 16)
                let avif = try await util.variant(for: url, transform: transform, accepting: [.avif, .webp, .jpeg])
                let webp = try await util.variant(for: url, transform: transform, accepting: [.webp, .jpeg])
                let legacy = try await util.variant(for: url, transform: transform, accepting: [.jpeg, .png])
                #expect((avif.format, webp.format, legacy.format) == (.avif, .webp, .png))
                #expect(Set([avif.key, webp.key, legacy.key]).count == 3)
                #expect(util.transformCount == 3)
            }
        }
    }

    @Test func badSourcesAndBadTransformsCacheNothing() async throws {
        let corrupt = try UtilTestSupport.fixture("png/libpng-testpngs/crashers/badcrc.png")
        try await withTestOrigin { origin in
            origin.setRoute("/bad.png", .resource(TestResource(content: .bytes(corrupt), eTag: "\"x\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager)
                let url = try #require(URL(string: origin.url("/bad.png")))
                await #expect(throws: CodecError.self) { try await util.variant(for: url, transform: ImageTransform(width: 10)) }
                // The bad source left the disk cache; no variant was stored.
                #expect(try manager.diskCache.data(forKey: AssetLoader.defaultCacheKey(for: url.absoluteString)) == nil)
                #expect(manager.diskCache.statistics.entries == 0)
                #expect(manager.memoryCache(for: .image).count == 0)

                // A transform that cannot be made fails before any request or decode.
                let started = util.transformCount
                let other = try #require(URL(string: origin.url("/never.png")))
                await #expect(throws: ImagingError.invalidTransform) {
                    try await util.variant(for: other, transform: ImageTransform(width: 0))
                }
                #expect(origin.requestCount(path: "/never.png") == 0)
                #expect(util.transformCount == started)
            }
        }
    }
}

/// The renderer's version in the variant's key: a new build of the code or the libraries misses.
@Suite("Variant keys name the renderer")
struct RendererVersionTests {
    @Test func theVersionNamesOurCodeAndEachLibraryFile() {
        let components = RendererVersion.components
        #expect(components.first?.hasPrefix("assetpipe ") == true)
        #expect(components.count == RendererVersion.libraries.count + 1)
        // the libraries this machine decodes with are found (scripts/install-deps installs them)
        for name in ["png16", "jpeg", "webp", "avif", "heif", "tiff", "rsvg-2", "jxl", "lcms2", "rlottie", "avcodec"] {
            #expect(components.contains { $0.hasPrefix("lib\(name).so.") }, "lib\(name) not found")
        }
        #expect(RendererVersion.current.hasPrefix("r-") && RendererVersion.current.count == 18)
        var upgraded = components
        upgraded[2] += "0"  // a library file one byte longer
        #expect(RendererVersion.make(components: upgraded) != RendererVersion.current)
        #expect(RendererVersion.make(components: components) == RendererVersion.current)
    }

    @Test func aChangedRendererMissesTheVariantsOfTheOldOne() async throws {
        let jpeg = try UtilTestSupport.fixture(ImageVariantTests.jpegPath)
        try await withTestOrigin { origin in
            origin.setRoute("/r.jpg", .resource(TestResource(content: .bytes(jpeg), eTag: "\"1\"", headers: freshForAnHour)))
            let url = try #require(URL(string: origin.url("/r.jpg")))
            let transform = try ImageTransform(parsing: "w=60,format=png")
            try await UtilTestSupport.withManager { manager in
                let old = ImageUtil(manager: manager)
                let first = try await old.variant(for: url, transform: transform)
                #expect(first.origin == .transformed)
                var configuration = ImageUtil.Configuration()
                configuration.rendererVersion = RendererVersion.make(components: RendererVersion.components + ["libnew.so.2 1"])
                let upgraded = ImageUtil(manager: manager, configuration: configuration)
                let named = try await upgraded.variantRequest(for: url, transform: transform)
                let oldNamed = try await old.variantRequest(for: url, transform: transform)
                #expect(named.key != oldNamed.key)
                #expect(named.entityTag != oldNamed.entityTag)
                let again = try await upgraded.variant(for: named)
                #expect(again.origin == .transformed)  // not the old build's disk entry
                // the old renderer still finds its own
                #expect(try await old.variant(for: oldNamed).origin != .transformed)
            }
        }
    }
}
