import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@Suite("AssetLoader freshness (useProtocolCachePolicy)")
struct AssetLoaderFreshnessTests {
    let body = Array("hello asset".utf8)

    @Test func downloadsStreamsIntoTheCacheAndReportsIt() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/a", .response(.ok("hello asset", headers: [("Content-Type", "text/plain"), ("ETag", "\"v1\"")])))
            let (response, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/a"), kind: .image))
            #expect(response.outcome == .downloaded)
            #expect(response.status == 200)
            #expect(bytes == self.body)
            #expect(response.size == Int64(self.body.count))
            #expect(response.bytesReceived == Int64(self.body.count))
            #expect(response.attempts == 1)
            let metadata = try #require(try harness.cache.metadata(forKey: response.cacheKey))
            #expect(metadata.kind == .image)
            #expect(metadata.eTag == "\"v1\"")
            #expect(metadata.contentType == "text/plain")
            #expect(metadata.http?.status == 200)
            let storedData = try harness.cache.data(forKey: response.cacheKey)
            #expect(storedData == Data(self.body))
            #expect(origin.requestCount(path: "/a") == 1)
            #expect(harness.temporaryFiles.isEmpty)
        }
    }

    @Test func freshEntryAnswersWithoutARequest() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/fresh", .response(.ok("hello asset", headers: [("Cache-Control", "max-age=3600")])))
            let first = try await harness.loader.load(AssetRequest(url: origin.location("/fresh")))
            let (second, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/fresh")))
            #expect(first.outcome == .downloaded)
            #expect(second.outcome == .cached)
            #expect(second.attempts == 0)
            #expect(second.bytesReceived == 0)
            #expect(bytes == self.body)
            #expect(origin.requestCount(path: "/fresh") == 1)
        }
    }

    @Test func expiresDecidesFreshnessWithoutMaxAge() async throws {
        try await withOriginAndLoader { origin, harness in
            let inAnHour = HTTPDate.format(Date().addingTimeInterval(3600))
            origin.setRoute("/later", .response(.ok("hello asset", headers: [("Expires", inAnHour)])))
            origin.setRoute("/expired", .resource(TestResource(content: .bytes(self.body), eTag: "\"x\"", headers: [("Expires", "0")])))
            for path in ["/later", "/expired"] {
                _ = try await harness.loader.load(AssetRequest(url: origin.location(path)))
            }
            let later = try await harness.loader.load(AssetRequest(url: origin.location("/later")))
            let expired = try await harness.loader.load(AssetRequest(url: origin.location("/expired")))
            #expect(later.outcome == .cached)
            #expect(expired.outcome == .revalidated)  // an invalid Expires means already stale
            #expect(origin.requestCount(path: "/later") == 1)
            #expect(origin.requestCount(path: "/expired") == 2)
        }
    }

    @Test func staleEntryIsRevalidatedWith304AndKeepsItsBody() async throws {
        try await withOriginAndLoader { origin, harness in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            origin.setRoute(
                "/r",
                .resource(TestResource(content: .bytes(self.body), eTag: "\"v1\"", lastModified: modified, headers: [("Cache-Control", "max-age=0")])))
            let first = try await harness.loader.load(AssetRequest(url: origin.location("/r")))
            #expect(first.outcome == .downloaded)
            _ = try await harness.loader.data(for: first)
            let before = try #require(try harness.cache.metadata(forKey: first.cacheKey))

            let (second, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/r")))
            #expect(second.outcome == .revalidated)
            #expect(second.status == 200)
            #expect(second.attempts == 1)
            #expect(bytes == self.body)
            let requests = origin.requests(path: "/r")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
            #expect(requests.last?.header("If-Modified-Since") != nil)

            let after = try #require(try harness.cache.metadata(forKey: first.cacheKey))
            #expect(after.checksum == before.checksum)
            #expect(after.createdDate == before.createdDate)
            #expect(after.accessCount == before.accessCount + 1)  // the read of `bytes`, not the 304
            let refreshedAt = try #require(after.http?.responseTime)
            let storedAt = try #require(before.http?.responseTime)
            #expect(refreshedAt >= storedAt)
        }
    }

    @Test func a200ToARevalidationReplacesTheEntry() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute(
                "/v",
                .sequence([
                    .ok("version one", headers: [("ETag", "\"1\""), ("Cache-Control", "max-age=0")]),
                    .ok("version two", headers: [("ETag", "\"2\""), ("Cache-Control", "max-age=0")]),
                ]))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/v")))
            let (second, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/v")))
            #expect(second.outcome == .downloaded)
            #expect(bytes == Array("version two".utf8))
            #expect(origin.requests(path: "/v").last?.header("If-None-Match") == "\"1\"")
            let storedETag = try harness.cache.metadata(forKey: second.cacheKey)?.eTag
            #expect(storedETag == "\"2\"")
        }
    }

    @Test func noStoreIsNotStored() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/private", .response(.ok("hello asset", headers: [("Cache-Control", "no-store")])))
            let (first, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/private")))
            #expect(first.outcome == .downloaded)
            #expect(bytes == self.body)
            #expect(first.metadata == nil)
            #expect(first.storagePolicy == .notAllowed)
            #expect(!harness.cache.contains(key: first.cacheKey))
            let second = try await harness.loader.load(AssetRequest(url: origin.location("/private")))
            #expect(second.outcome == .downloaded)
            #expect(origin.requestCount(path: "/private") == 2)
        }
    }

    @Test func theStoragePolicyHookKeepsResponsesOffTheDisk() async throws {
        let hook: @Sendable (AssetRequest, Int, HeaderFields) -> StoragePolicy = { request, status, headers in
            guard status == 200 else { return .notAllowed }
            return headers["Content-Type"] == "image/x-secret" ? .memoryOnly : .allowed
        }
        try await withOriginAndLoader({ $0.storagePolicy = hook }) { origin, harness in
            origin.setRoute("/secret", .response(.ok("hello asset", headers: [("Content-Type", "image/x-secret"), ("Cache-Control", "max-age=3600")])))
            origin.setRoute("/public", .response(.ok("hello asset", headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")])))
            let (secret, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/secret")))
            #expect(secret.storagePolicy == .memoryOnly)
            #expect(secret.metadata == nil)
            #expect(bytes == self.body)
            #expect(!harness.cache.contains(key: secret.cacheKey))
            let open = try await harness.loader.load(AssetRequest(url: origin.location("/public")))
            #expect(open.storagePolicy == .allowed)
            #expect(harness.cache.contains(key: open.cacheKey))
        }
    }

    @Test func varyKeepsOneEntryPerVariant() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/vary", .response(.ok("hello asset", headers: [("Cache-Control", "max-age=3600"), ("Vary", "Accept")])))
            func load(_ accept: String?) async throws -> AssetResponse {
                var headers = HeaderFields()
                if let accept { headers.append(name: "Accept", value: accept) }
                return try await harness.loader.load(AssetRequest(url: origin.location("/vary"), headers: headers))
            }
            let webp = try await load("image/webp")
            let png = try await load("image/png")
            let none = try await load(nil)
            #expect([webp, png, none].map(\.outcome) == [.downloaded, .downloaded, .downloaded])
            #expect(Set([webp.cacheKey, png.cacheKey, none.cacheKey]).count == 3)
            let again = try await [load("image/webp"), load("image/png"), load(nil), load("image/webp ")]
            #expect(again.map(\.outcome) == [.cached, .cached, .cached, .cached])
            #expect(again.map(\.cacheKey) == [webp.cacheKey, png.cacheKey, none.cacheKey, webp.cacheKey])
            #expect(origin.requestCount(path: "/vary") == 3)
            let bytes = try await harness.loader.data(for: again[1])
            #expect(bytes == Data(self.body))
        }
    }

    @Test func aVariantIsRevalidatedInPlace() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute(
                "/vr", .resource(TestResource(content: .bytes(self.body), eTag: "\"vr\"", headers: [("Cache-Control", "max-age=0"), ("Vary", "Accept")])))
            let request = AssetRequest(url: origin.location("/vr"), headers: ["Accept": "image/avif"])
            let first = try await harness.loader.load(request)
            let (second, bytes) = try await harness.loader.loadBytes(request)
            #expect(first.outcome == .downloaded)
            #expect(second.outcome == .revalidated)
            #expect(second.cacheKey == first.cacheKey)
            #expect(bytes == self.body)
        }
    }

    @Test func onlyIfCachedNeverContactsTheOrigin() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/o", .response(.ok("hello asset", headers: [("Cache-Control", "max-age=3600")])))
            await #expect(throws: LoaderError.notCached) {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/o"), cacheControl: "only-if-cached"))
            }
            #expect(origin.requestCount(path: "/o") == 0)
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/o")))
            let cached = try await harness.loader.load(AssetRequest(url: origin.location("/o"), cacheControl: "only-if-cached"))
            #expect(cached.outcome == .cached)
            #expect(origin.requestCount(path: "/o") == 1)
        }
    }

    @Test func maxStaleServesAStaleEntryWithoutARequest() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/s", .response(.ok("hello asset", headers: [("Cache-Control", "max-age=0"), ("ETag", "\"s\"")])))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/s")))
            let stale = try await harness.loader.load(AssetRequest(url: origin.location("/s"), cacheControl: "max-stale"))
            #expect(stale.outcome == .stale)
            #expect(origin.requestCount(path: "/s") == 1)
        }
    }

    @Test func staleIfErrorServesTheStaleEntryWhenTheOriginFails() async throws {
        try await withOriginAndLoader({ $0.retry = .none }) { origin, harness in
            origin.setRoute(
                "/e",
                .sequence([
                    .ok("hello asset", headers: [("Cache-Control", "max-age=0, stale-if-error=600"), ("ETag", "\"e\"")]),
                    TestResponse(status: 503),
                ]))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/e")))
            let (stale, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/e")))
            #expect(stale.outcome == .stale)
            #expect(bytes == self.body)
            #expect(origin.requestCount(path: "/e") == 2)
        }
    }

    @Test func mustRevalidateFailsInsteadOfServingStale() async throws {
        try await withOriginAndLoader({ $0.retry = .none }) { origin, harness in
            origin.setRoute(
                "/m",
                .sequence([
                    .ok("hello asset", headers: [("Cache-Control", "max-age=0, must-revalidate, stale-if-error=600"), ("ETag", "\"m\"")]),
                    TestResponse(status: 503),
                ]))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/m")))
            await #expect(throws: LoaderError.http(503)) {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/m")))
            }
        }
    }

    @Test func staleWhileRevalidateAnswersAtOnceAndRefreshesBehind() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute(
                "/swr",
                .resource(TestResource(content: .bytes(self.body), eTag: "\"w\"", headers: [("Cache-Control", "max-age=0, stale-while-revalidate=600")])))
            let first = try await harness.loader.load(AssetRequest(url: origin.location("/swr")))
            let before = try #require(try harness.cache.metadata(forKey: first.cacheKey)?.http?.responseTime)
            let second = try await harness.loader.load(AssetRequest(url: origin.location("/swr")))
            #expect(second.outcome == .stale)
            await harness.loader.waitForBackgroundRefreshes()
            let requests = origin.requests(path: "/swr")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"w\"")
            let after = try #require(try harness.cache.metadata(forKey: first.cacheKey)?.http?.responseTime)
            #expect(after >= before)
        }
    }
}
