import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@Suite("AssetLoader strategies")
struct AssetLoaderStrategyTests {
    static let freshHeaders = [("Cache-Control", "max-age=3600"), ("ETag", "\"f\"")]
    static let staleHeaders = [("Cache-Control", "max-age=0"), ("ETag", "\"s\"")]

    @Test func networkOnlyAlwaysAsksTheOrigin() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/n", .response(.ok("fresh", headers: Self.freshHeaders)))
            let first = try await harness.loader.load(AssetRequest(url: origin.location("/n"), strategy: .networkOnly))
            let second = try await harness.loader.load(AssetRequest(url: origin.location("/n"), strategy: .networkOnly))
            #expect(first.outcome == .downloaded)
            #expect(second.outcome == .downloaded)
            #expect(origin.requestCount(path: "/n") == 2)
            #expect(origin.requests(path: "/n").allSatisfy { $0.header("If-None-Match") == nil })
            // what it downloaded was stored: the protocol policy then answers from the cache
            let cached = try await harness.loader.load(AssetRequest(url: origin.location("/n")))
            #expect(cached.outcome == .cached)
            #expect(origin.requestCount(path: "/n") == 2)
        }
    }

    @Test func cacheOnlyNeverAsksTheOrigin() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/c", .response(.ok("stale", headers: Self.staleHeaders)))
            await #expect(throws: LoaderError.notCached) {
                _ = try await harness.loader.load(AssetRequest(url: origin.location("/c"), strategy: .cacheOnly))
            }
            #expect(origin.requestCount(path: "/c") == 0)
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/c")))
            let (response, bytes) = try await harness.loader.loadBytes(AssetRequest(url: origin.location("/c"), strategy: .cacheOnly))
            #expect(response.outcome == .stale)
            #expect(bytes == Array("stale".utf8))
            #expect(origin.requestCount(path: "/c") == 1)
        }
    }

    @Test func cacheFirstUsesAnyEntryElseTheNetwork() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/cf", .response(.ok("stale", headers: Self.staleHeaders)))
            let first = try await harness.loader.load(AssetRequest(url: origin.location("/cf"), strategy: .cacheFirst))
            #expect(first.outcome == .downloaded)
            let second = try await harness.loader.load(AssetRequest(url: origin.location("/cf"), strategy: .cacheFirst))
            #expect(second.outcome == .stale)
            #expect(origin.requestCount(path: "/cf") == 1)

            origin.setRoute("/cf-fresh", .response(.ok("fresh", headers: Self.freshHeaders)))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/cf-fresh"), strategy: .cacheFirst))
            let fresh = try await harness.loader.load(AssetRequest(url: origin.location("/cf-fresh"), strategy: .cacheFirst))
            #expect(fresh.outcome == .cached)
            #expect(origin.requestCount(path: "/cf-fresh") == 1)
        }
    }

    @Test func networkFirstFallsBackToTheCacheOnlyWhenTheOriginFails() async throws {
        try await withOriginAndLoader({ $0.retry = .none }) { origin, harness in
            origin.setRoute(
                "/nf",
                .sequence([
                    .ok("first", headers: Self.freshHeaders),
                    .ok("second", headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"g\"")]),
                    TestResponse(status: 502),
                    TestResponse(status: 404),
                ]))
            let request = AssetRequest(url: origin.location("/nf"), strategy: .networkFirst)
            let firstOutcome = try await harness.loader.load(request).outcome
            #expect(firstOutcome == .downloaded)
            let (second, bytes) = try await harness.loader.loadBytes(request)
            #expect(second.outcome == .downloaded)  // a fresh entry does not stop networkFirst
            #expect(bytes == Array("second".utf8))
            let (fallback, fallbackBytes) = try await harness.loader.loadBytes(request)
            #expect(fallback.outcome == .stale)
            #expect(fallbackBytes == Array("second".utf8))
            await #expect(throws: LoaderError.http(404)) {
                _ = try await harness.loader.load(request)
            }
            #expect(origin.requestCount(path: "/nf") == 4)
        }
    }

    @Test func networkFirstRevalidatesWhatItHas() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/nr", .resource(TestResource(content: .bytes(Array("body".utf8)), eTag: "\"r\"", headers: [("Cache-Control", "max-age=3600")])))
            let request = AssetRequest(url: origin.location("/nr"), strategy: .networkFirst)
            let initialOutcome = try await harness.loader.load(request).outcome
            #expect(initialOutcome == .downloaded)
            let secondOutcome = try await harness.loader.load(request).outcome
            #expect(secondOutcome == .revalidated)
            #expect(origin.requests(path: "/nr").last?.header("If-None-Match") == "\"r\"")
        }
    }

    @Test func cacheWithTimeoutAnswersFromTheCacheWhenTheNetworkIsSlow() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/t", .response(.ok("cached body", headers: Self.staleHeaders)))
            _ = try await harness.loader.load(AssetRequest(url: origin.location("/t")))
            // the next answer's body never completes until the origin stops
            origin.setRoute("/t", .response(TestResponse(headers: [("ETag", "\"t2\"")], body: .stall(prefix: [1], declaredLength: 10))))
            let (response, bytes) = try await harness.loader.loadBytes(
                AssetRequest(url: origin.location("/t"), strategy: .cacheWithTimeout(seconds: 0.05)))
            #expect(response.outcome == .stale)
            #expect(bytes == Array("cached body".utf8))
        }
    }

    @Test func cacheWithTimeoutTakesTheNetworkAnswerWhenItComesInTime() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/tn", .sequence([.ok("old", headers: Self.staleHeaders), .ok("new", headers: Self.staleHeaders)]))
            let request = AssetRequest(url: origin.location("/tn"), strategy: .cacheWithTimeout(seconds: 600))
            let coldOutcome = try await harness.loader.load(request).outcome
            #expect(coldOutcome == .downloaded)  // no entry: the network
            let (response, bytes) = try await harness.loader.loadBytes(request)
            #expect(response.outcome == .downloaded)
            #expect(bytes == Array("new".utf8))
        }
    }

    @Test func cacheAndNetworkAnswersFromTheCacheAndRefreshesBehind() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/cn", .sequence([.ok("old", headers: Self.freshHeaders), .ok("new", headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"n\"")])]))
            let request = AssetRequest(url: origin.location("/cn"), strategy: .cacheAndNetwork)
            let cold = try await harness.loader.load(request)
            #expect(cold.outcome == .downloaded)  // nothing cached: the network
            let (warm, warmBytes) = try await harness.loader.loadBytes(request)
            #expect(warm.outcome == .cached)
            #expect(warmBytes == Array("old".utf8))
            await harness.loader.waitForBackgroundRefreshes()
            #expect(origin.requestCount(path: "/cn") == 2)
            #expect(origin.requests(path: "/cn").last?.header("If-None-Match") == "\"f\"")
            let storedData = try harness.cache.data(forKey: warm.cacheKey)
            #expect(storedData == Data("new".utf8))
        }
    }

    @Test func updatesReportTheCachedAnswerThenTheRefreshedOne() async throws {
        try await withOriginAndLoader { origin, harness in
            origin.setRoute("/u", .resource(TestResource(content: .bytes(Array("same".utf8)), eTag: "\"u\"", headers: [("Cache-Control", "max-age=3600")])))
            let request = AssetRequest(url: origin.location("/u"), strategy: .cacheAndNetwork)
            var first: [LoadOutcome] = []
            for try await response in harness.loader.updates(for: request) {
                first.append(response.outcome)
            }
            #expect(first == [.downloaded])
            var second: [LoadOutcome] = []
            for try await response in harness.loader.updates(for: request) {
                second.append(response.outcome)
                let bytes = try await harness.loader.data(for: response)
                #expect(bytes == Data("same".utf8))
            }
            #expect(second == [.cached, .revalidated])
            #expect(origin.requestCount(path: "/u") == 2)

            var single: [LoadOutcome] = []
            for try await response in harness.loader.updates(for: AssetRequest(url: origin.location("/u"))) {
                single.append(response.outcome)
            }
            #expect(single == [.cached])
        }
    }
}
