import AssetImaging
import AssetLoading
import AssetTestSupport
import Foundation
import Testing

@testable import AssetPipeline

/// `ImageUtil` with a `DerivedStore` on the test radosgw (`scripts/radosgw`): a variant made once is
/// written to the bucket, and a manager with an empty cache reads it instead of transforming.
@Suite(.enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct DerivedStoreTests {
    static func s3() throws -> S3Client.Configuration {
        let store = try TestObjectStore.current()
        return S3Client.Configuration(
            endpoint: store.endpoint, region: store.region,
            credentials: S3Credentials(accessKeyID: store.accessKey, secretAccessKey: store.secretKey))
    }

    @Test func aVariantMadeOnceIsReadFromTheStoreWithAnEmptyCache() async throws {
        let s3 = try Self.s3()
        let bucket = TestObjectStore.uniqueBucket("derived")
        let png = try UtilTestSupport.fixture("imaging/rgb-alpha-8-sRGB.png")
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"v1\"", headers: freshForAnHour)))
            let url = try #require(URL(string: origin.url("/a.png")))
            var images = ImageUtil.Configuration()
            images.derivedStore = DerivedStore.Configuration(s3: s3, location: S3Location(bucket: bucket, key: "variants/v1/"))
            let transform = try ImageTransform(parsing: "w=24,format=png")

            let made = try await UtilTestSupport.withManager { manager in
                let client = S3Client(configuration: s3, httpClient: manager.loader.httpClient)
                try await client.createBucket(bucket)
                let util = ImageUtil(manager: manager, configuration: images)
                let variant = try await util.variant(for: url, transform: transform)
                #expect(variant.origin == .transformed)
                let store = try #require(util.derivedStore)
                await store.waitForWrites()
                #expect(store.statistics.written == 2)  // the variant and the source's record
                #expect(store.statistics.misses == 1)
                let object = store.location(forVariantKey: variant.key)
                #expect(object.key.hasPrefix("variants/v1/") && !object.key.hasPrefix("variants/v1//"))
                let head = try await client.head(object)
                #expect(head.size == Int64(variant.data.count))
                #expect(head.contentType?.hasPrefix("image/png") == true)
                return variant
            }

            // another process, an empty disk: the variant comes from the bucket, no transform
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager, configuration: images)
                let variant = try await util.variant(for: url, transform: transform)
                #expect(variant.origin == .derivedStore)
                #expect(variant.data == made.data)
                #expect(variant.width == made.width && variant.height == made.height && variant.format == made.format)
                #expect(util.transformCount == 0)
                #expect(util.derivedStore?.statistics.hits == 1)
                #expect(try await util.variant(for: url, transform: transform).origin == .memory)
            }

            // a changed source is another key: made again, never the old object
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"v2\"", headers: freshForAnHour)))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager, configuration: images)
                let variant = try await util.variant(for: url, transform: transform)
                #expect(variant.origin == .transformed)
                #expect(variant.key != made.key)
                await util.derivedStore?.waitForWrites()
            }
        }
    }

    /// The tier's case: a process that never loaded the source names the variant from the source's
    /// record in the store while the source is fresh, and answers with no origin request and no
    /// transform; a stale source, a client's `no-cache` or another renderer go the ordinary way.
    @Test func aProcessThatNeverSawTheSourceAnswersFromTheStoreWhileTheSourceIsFresh() async throws {
        let s3 = try Self.s3()
        let bucket = TestObjectStore.uniqueBucket("records")
        let png = try UtilTestSupport.fixture("imaging/rgb-alpha-8-sRGB.png")
        try await withTestOrigin { origin in
            origin.setRoute("/fresh.png", .resource(TestResource(content: .bytes(png), eTag: "\"v1\"", headers: freshForAnHour)))
            origin.setRoute("/stale.png", .resource(TestResource(content: .bytes(png), eTag: "\"s1\"", headers: [("Cache-Control", "max-age=0")])))
            let fresh = try #require(URL(string: origin.url("/fresh.png")))
            let stale = try #require(URL(string: origin.url("/stale.png")))
            var images = ImageUtil.Configuration()
            images.derivedStore = DerivedStore.Configuration(s3: s3, location: S3Location(bucket: bucket, key: "v1"))
            let transform = try ImageTransform(parsing: "w=20,format=webp")

            // the first process makes both variants and writes them with the sources' records
            let made = try await UtilTestSupport.withManager { manager in
                try await S3Client(configuration: s3, httpClient: manager.loader.httpClient).createBucket(bucket)
                let util = ImageUtil(manager: manager, configuration: images)
                let variant = try await util.variant(for: fresh, transform: transform)
                _ = try await util.variant(for: stale, transform: transform)
                let store = try #require(util.derivedStore)
                await store.waitForWrites()
                #expect(store.statistics.written == 4)
                let record = store.recordLocation(forCacheKey: AssetLoader.defaultCacheKey(for: fresh.absoluteString))
                #expect(record.key.hasPrefix("v1/sources/"))
                // a second load of the same version writes no second record
                _ = try await util.variant(for: fresh, transform: try ImageTransform(parsing: "w=10,format=png"))
                await store.waitForWrites()
                #expect(store.statistics.written == 5)
                return variant
            }
            origin.resetRequestLog()

            // a process with an empty disk: the fresh source's variant with no origin request
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager, configuration: images)
                let found = try #require(await util.storedVariant(for: fresh, transform: transform))
                #expect(found.variant.origin == .derivedStore)
                #expect(found.variant.data == made.data && found.request.key == made.key)
                #expect(found.request.source.headers["ETag"] == "\"v1\"")
                #expect(util.transformCount == 0)
                #expect(origin.totalRequestCount == 0)
                // now on disk here: the ordinary way, which finds it without a transform
                #expect(try await util.variant(for: found.request).origin == .memory)

                // a source that was stale when recorded is never trusted: the ordinary way
                #expect(await util.storedVariant(for: stale, transform: transform) == nil)
                // nor is a record against a client's `no-cache`
                let another = try ImageTransform(parsing: "w=10,format=png")
                let asked: HeaderFields = ["Cache-Control": "no-cache"]
                try await UtilTestSupport.withManager { other in
                    let util = ImageUtil(manager: other, configuration: images)
                    #expect(await util.storedVariant(for: fresh, transform: another, headers: asked) == nil)
                    #expect(await util.storedVariant(for: fresh, transform: another) != nil)
                }
                #expect(origin.totalRequestCount == 0)
            }

            // another renderer's key: the record names the source, but no variant of this renderer
            var newer = images
            newer.rendererVersion = "another-renderer"
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager, configuration: newer)
                #expect(await util.storedVariant(for: fresh, transform: transform) == nil)
                let variant = try await util.variant(for: fresh, transform: transform)
                #expect(variant.origin == .transformed && variant.key != made.key)
                await util.derivedStore?.waitForWrites()
            }
        }
    }

    @Test func pruneRemovesWhatIsOlderThanTheLifetime() async throws {
        let s3 = try Self.s3()
        let bucket = TestObjectStore.uniqueBucket("prune")
        let configuration = DerivedStore.Configuration(s3: s3, location: S3Location(bucket: bucket, key: "v1"))
        try await UtilTestSupport.withManager { manager in
            let client = S3Client(configuration: s3, httpClient: manager.loader.httpClient)
            try await client.createBucket(bucket)
            let store = DerivedStore(configuration: configuration, httpClient: manager.loader.httpClient)
            for name in ["a", "b", "c"] {
                try await client.put(store.location(forVariantKey: name), body: Array(name.utf8))
            }
            try await client.put(S3Location(bucket: bucket, key: "other/x"), body: [1])  // outside the prefix
            #expect(try await client.listObjects(bucket: bucket, prefix: "v1/").count == 3)
            // a lifetime of an hour keeps them all; then, an hour later, none is kept
            let kept = try await store.prune(maxAge: .seconds(3600))
            #expect(kept == DerivedStore.PruneResult(removed: 0, removedBytes: 0, kept: 3))
            let later = try await DerivedStore.prune(configuration, maxAge: .seconds(3600), now: Date().addingTimeInterval(3700))
            #expect(later == DerivedStore.PruneResult(removed: 3, removedBytes: 3, kept: 0))
            #expect(try await client.listObjects(bucket: bucket, prefix: "").map(\.key) == ["other/x"])
        }
    }

    @Test func aStoreThatIsDownChangesNothingButItsCounts() async throws {
        var s3 = try Self.s3()
        s3.endpoint = "http://127.0.0.1:1"  // nothing listens: every request fails at once
        s3.retry = .none
        let png = try UtilTestSupport.fixture("imaging/rgb-alpha-8-sRGB.png")
        try await withTestOrigin { origin in
            origin.setRoute("/a.png", .resource(TestResource(content: .bytes(png), eTag: "\"v1\"", headers: freshForAnHour)))
            var images = ImageUtil.Configuration()
            images.derivedStore = DerivedStore.Configuration(s3: s3, location: S3Location(bucket: "down", key: ""))
            try await UtilTestSupport.withManager { manager in
                let util = ImageUtil(manager: manager, configuration: images)
                let variant = try await util.variant(for: try #require(URL(string: origin.url("/a.png"))), transform: try ImageTransform(parsing: "w=16"))
                #expect(variant.origin == .transformed)
                let store = try #require(util.derivedStore)
                await store.waitForWrites()
                // the variant and the source's record
                #expect(store.statistics == DerivedStore.Statistics(hits: 0, misses: 1, written: 0, failed: 2, dropped: 0))
                #expect(await util.storedVariant(for: try #require(URL(string: origin.url("/b.png"))), transform: try ImageTransform(parsing: "w=16")) == nil)
            }
        }
    }
}
