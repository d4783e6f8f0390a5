import AssetLoading
import Foundation
import Testing

@Suite("Cache decision (RFC 9111 4, 5.2; RFC 5861)")
struct CacheDecisionTests {
    let policy = FreshnessPolicy()
    let eTag = "\"v1\""
    let lastModified = HTTPDate.format(at(-864_000))

    func stored(_ cacheControl: String, eTag: Bool = true, lastModified: Bool = false) -> StoredResponse {
        var headers: HeaderFields = ["Cache-Control": cacheControl]
        if eTag { headers.append(name: "ETag", value: self.eTag) }
        if lastModified { headers.append(name: "Last-Modified", value: self.lastModified) }
        return storedResponse(headers)
    }

    @Test func freshResponseIsUsedWithItsAge() {
        #expect(self.policy.decide(stored: self.stored("max-age=100"), request: [:], now: at(10)) == .fresh(age: 10))
    }

    @Test func staleResponseIsRevalidatedWithItsValidators() {
        let both = self.stored("max-age=100", lastModified: true)
        #expect(
            self.policy.decide(stored: both, request: [:], now: at(100))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag, ifModifiedSince: self.lastModified))
        )
        let onlyDate = self.stored("max-age=100", eTag: false, lastModified: true)
        #expect(
            self.policy.decide(stored: onlyDate, request: [:], now: at(100))
                == .mustRevalidate(ConditionalHeaders(ifModifiedSince: self.lastModified))
        )
        #expect(
            ConditionalHeaders(ifNoneMatch: self.eTag, ifModifiedSince: self.lastModified).fields
                == ["If-None-Match": self.eTag, "If-Modified-Since": self.lastModified]
        )
    }

    @Test func staleResponseWithoutValidatorIsUnusable() {
        let stored = self.stored("max-age=100", eTag: false)
        #expect(self.policy.decide(stored: stored, request: [:], now: at(100)) == .unusable(.noValidator))
    }

    @Test func responseNoCacheAlwaysRevalidates() {
        let stored = self.stored("max-age=1000, no-cache")
        #expect(self.policy.decide(stored: stored, request: [:], now: at(1)) == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag)))
        let noValidator = self.stored("no-cache", eTag: false)
        #expect(self.policy.decide(stored: noValidator, request: [:], now: at(1)) == .unusable(.noValidator))
    }

    @Test func qualifiedNoCacheDoesNotForceRevalidation() {
        let stored = self.stored("max-age=1000, no-cache=\"Set-Cookie\"")
        #expect(self.policy.decide(stored: stored, request: [:], now: at(1)) == .fresh(age: 1))
    }

    @Test func requestNoCacheAndPragmaRevalidate() {
        let stored = self.stored("max-age=1000")
        let revalidate = CacheDecision.mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "no-cache"], now: at(1)) == revalidate)
        #expect(self.policy.decide(stored: stored, request: ["Pragma": "no-cache"], now: at(1)) == revalidate)
        // Pragma is ignored when the request has Cache-Control
        #expect(self.policy.decide(stored: stored, request: ["Pragma": "no-cache", "Cache-Control": "max-stale"], now: at(1)) == .fresh(age: 1))
    }

    @Test func requestMaxAgeLimitsAcceptableAge() {
        let stored = self.stored("max-age=1000")
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "max-age=30"], now: at(10)) == .fresh(age: 10))
        #expect(
            self.policy.decide(stored: stored, request: ["Cache-Control": "max-age=30"], now: at(31))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
        #expect(
            self.policy.decide(stored: stored, request: ["Cache-Control": "max-age=0"], now: at(1))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
    }

    @Test func requestMinFreshNeedsEnoughFreshnessLeft() {
        let stored = self.stored("max-age=100")
        // at 40: 60 s of freshness left >= 50
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "min-fresh=50"], now: at(40)) == .fresh(age: 40))
        // at 60: 40 s left < 50
        #expect(
            self.policy.decide(stored: stored, request: ["Cache-Control": "min-fresh=50"], now: at(60))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
    }

    @Test func requestMaxStaleAcceptsStaleness() {
        let stored = self.stored("max-age=100")
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "max-stale"], now: at(10_000)) == .staleAllowed(age: 10_000))
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "max-stale=10"], now: at(105)) == .staleAllowed(age: 105))
        #expect(
            self.policy.decide(stored: stored, request: ["Cache-Control": "max-stale=10"], now: at(120))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
    }

    @Test func mustRevalidateForbidsServingStale() {
        let stored = self.stored("max-age=100, must-revalidate, stale-while-revalidate=60")
        let revalidate = CacheDecision.mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "max-stale"], now: at(101)) == revalidate)
        #expect(self.policy.decide(stored: stored, request: [:], now: at(101)) == revalidate)
        #expect(self.policy.decide(stored: stored, request: [:], now: at(99)) == .fresh(age: 99))
    }

    @Test func staleWhileRevalidateWindow() {
        let stored = self.stored("max-age=100, stale-while-revalidate=30")
        #expect(
            self.policy.decide(stored: stored, request: [:], now: at(110))
                == .staleWhileRevalidate(age: 110, conditionalHeaders: ConditionalHeaders(ifNoneMatch: self.eTag))
        )
        #expect(
            self.policy.decide(stored: stored, request: [:], now: at(131))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
        let noValidator = self.stored("max-age=100, stale-while-revalidate=30", eTag: false)
        #expect(
            self.policy.decide(stored: noValidator, request: [:], now: at(110))
                == .staleWhileRevalidate(age: 110, conditionalHeaders: ConditionalHeaders())
        )
    }

    @Test func onlyIfCached() {
        let stored = self.stored("max-age=100")
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "only-if-cached"], now: at(10)) == .fresh(age: 10))
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "only-if-cached"], now: at(200)) == .gatewayTimeout)
        #expect(
            self.policy.decide(stored: stored, request: ["Cache-Control": "only-if-cached, max-stale"], now: at(200))
                == .staleAllowed(age: 200)
        )
        let varying = storedResponse(["Cache-Control": "max-age=100", "Vary": "Accept"], varyingRequestHeaders: ["Accept": "image/png"])
        #expect(
            self.policy.decide(stored: varying, request: ["Accept": "image/webp", "Cache-Control": "only-if-cached"], now: at(1))
                == .gatewayTimeout
        )
    }

    @Test func varyDecidesFirst() {
        let star = storedResponse(["Cache-Control": "max-age=100", "Vary": "*"])
        #expect(self.policy.decide(stored: star, request: [:], now: at(1)) == .unusable(.varyStar))
        let varying = storedResponse(["Cache-Control": "max-age=100", "Vary": "Accept"], varyingRequestHeaders: ["Accept": "image/png"])
        #expect(self.policy.decide(stored: varying, request: ["accept": "image/png"], now: at(1)) == .fresh(age: 1))
        #expect(self.policy.decide(stored: varying, request: ["Accept": "image/webp"], now: at(1)) == .unusable(.varyMismatch))
    }

    @Test func sharedModeUsesSMaxageAndItsRevalidationRule() {
        let stored = self.stored("max-age=10, s-maxage=100")
        // private: stale after 10 s, so max-stale may serve it
        #expect(self.policy.decide(stored: stored, request: ["Cache-Control": "max-stale"], now: at(50)) == .staleAllowed(age: 50))
        let shared = FreshnessPolicy(configuration: .init(shared: true))
        #expect(shared.decide(stored: stored, request: [:], now: at(50)) == .fresh(age: 50))
        // s-maxage implies proxy-revalidate in a shared cache: no stale serving
        #expect(
            shared.decide(stored: stored, request: ["Cache-Control": "max-stale"], now: at(150))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
        let proxyRevalidate = self.stored("max-age=10, proxy-revalidate")
        #expect(self.policy.decide(stored: proxyRevalidate, request: ["Cache-Control": "max-stale"], now: at(50)) == .staleAllowed(age: 50))
        #expect(
            shared.decide(stored: proxyRevalidate, request: ["Cache-Control": "max-stale"], now: at(50))
                == .mustRevalidate(ConditionalHeaders(ifNoneMatch: self.eTag))
        )
    }

    @Test func servesStoredResponseFlag() {
        #expect(CacheDecision.fresh(age: 0).servesStoredResponse)
        #expect(CacheDecision.staleAllowed(age: 0).servesStoredResponse)
        #expect(CacheDecision.staleWhileRevalidate(age: 0, conditionalHeaders: ConditionalHeaders()).servesStoredResponse)
        #expect(!CacheDecision.mustRevalidate(ConditionalHeaders()).servesStoredResponse)
        #expect(!CacheDecision.unusable(.noValidator).servesStoredResponse)
        #expect(!CacheDecision.gatewayTimeout.servesStoredResponse)
    }
}

@Suite("Stale on error (RFC 5861 4)")
struct StaleOnErrorTests {
    let policy = FreshnessPolicy()

    @Test func responseStaleIfErrorWindow() {
        let stored = storedResponse(["Cache-Control": "max-age=100, stale-if-error=600"])
        #expect(self.policy.canServeStaleOnError(stored: stored, request: [:], now: at(50)))
        #expect(self.policy.canServeStaleOnError(stored: stored, request: [:], now: at(700)))
        #expect(!self.policy.canServeStaleOnError(stored: stored, request: [:], now: at(701)))
    }

    @Test func requestStaleIfErrorAndMaxStale() {
        let stored = storedResponse(["Cache-Control": "max-age=100"])
        #expect(!self.policy.canServeStaleOnError(stored: stored, request: [:], now: at(150)))
        #expect(self.policy.canServeStaleOnError(stored: stored, request: ["Cache-Control": "stale-if-error=60"], now: at(150)))
        #expect(self.policy.canServeStaleOnError(stored: stored, request: ["Cache-Control": "max-stale"], now: at(150)))
    }

    @Test func neverAgainstMustRevalidateOrNoCache() {
        let mustRevalidate = storedResponse(["Cache-Control": "max-age=100, must-revalidate, stale-if-error=600"])
        #expect(!self.policy.canServeStaleOnError(stored: mustRevalidate, request: [:], now: at(150)))
        let noCache = storedResponse(["Cache-Control": "no-cache, stale-if-error=600"])
        #expect(!self.policy.canServeStaleOnError(stored: noCache, request: [:], now: at(1)))
        let fine = storedResponse(["Cache-Control": "max-age=100, stale-if-error=600"])
        #expect(!self.policy.canServeStaleOnError(stored: fine, request: ["Cache-Control": "no-cache"], now: at(150)))
    }

    @Test func neverForAVaryMismatch() {
        let stored = storedResponse(
            ["Cache-Control": "max-age=100, stale-if-error=600", "Vary": "Accept-Language"],
            varyingRequestHeaders: ["Accept-Language": "fr"]
        )
        #expect(!self.policy.canServeStaleOnError(stored: stored, request: ["Accept-Language": "de"], now: at(150)))
        #expect(self.policy.canServeStaleOnError(stored: stored, request: ["Accept-Language": "fr"], now: at(150)))
    }
}
