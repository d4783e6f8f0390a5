import AssetLoading
import Foundation
import Testing

@Suite("Freshness lifetime (RFC 9111 4.2.1, 4.2.2)")
struct FreshnessLifetimeTests {
    let policy = FreshnessPolicy()
    let sharedPolicy = FreshnessPolicy(configuration: .init(shared: true))

    @Test func maxAgeWinsOverExpires() {
        let stored = storedResponse(["Cache-Control": "max-age=60", "Expires": HTTPDate.format(at(3600))])
        #expect(self.policy.freshnessLifetime(of: stored) == 60)
    }

    @Test func sharedMaxAgeOnlyForSharedCaches() {
        let stored = storedResponse(["Cache-Control": "max-age=60, s-maxage=120"])
        #expect(self.policy.freshnessLifetime(of: stored) == 60)
        #expect(self.sharedPolicy.freshnessLifetime(of: stored) == 120)
    }

    @Test func expiresMinusDate() {
        // Date is 100 s before the response arrived: the lifetime is still Expires - Date
        let stored = storedResponse(
            ["Date": HTTPDate.format(at(-100)), "Expires": HTTPDate.format(at(200))],
            requestTime: t0,
            responseTime: t0
        )
        #expect(self.policy.freshnessLifetime(of: stored) == 300)
    }

    @Test func expiresWithoutDateUsesTheResponseTime() {
        let stored = storedResponse(["Expires": HTTPDate.format(at(500))], responseTime: at(20), addDate: false)
        #expect(self.policy.freshnessLifetime(of: stored) == 480)
    }

    @Test(arguments: ["0", "-1", "never", "Sun, 06 Nov 1994 08:49:37"])
    func invalidExpiresMeansStale(_ expires: String) {
        let stored = storedResponse(["Expires": expires, "Last-Modified": HTTPDate.format(at(-86_400 * 100))])
        #expect(self.policy.freshnessLifetime(of: stored) == 0)
        #expect(!self.policy.isFresh(stored, now: t0))
    }

    @Test func expiresInThePastAndRepeatedExpiresAreStale() {
        #expect(self.policy.freshnessLifetime(of: storedResponse(["Expires": HTTPDate.format(at(-10))])) == 0)
        let twice = storedResponse(["Expires": HTTPDate.format(at(100)), "expires": HTTPDate.format(at(200))])
        #expect(self.policy.freshnessLifetime(of: twice) == 0)
    }

    @Test func heuristicIsTenPercentOfTimeSinceLastModified() {
        // modified 10 days before Date: 10% is one day
        let stored = storedResponse(["Last-Modified": HTTPDate.format(at(-864_000))])
        #expect(self.policy.freshnessLifetime(of: stored) == 86_400)
        #expect(self.policy.isFresh(stored, now: at(86_399)))
        #expect(!self.policy.isFresh(stored, now: at(86_400)))
    }

    @Test func heuristicHonoursFractionAndCap() {
        let stored = storedResponse(["Last-Modified": HTTPDate.format(at(-864_000))])
        let capped = FreshnessPolicy(configuration: .init(heuristicFraction: 0.5, maximumHeuristicLifetime: 3_600))
        #expect(capped.freshnessLifetime(of: stored) == 3_600)
        let half = FreshnessPolicy(configuration: .init(heuristicFraction: 0.5))
        #expect(half.freshnessLifetime(of: stored) == 432_000)
    }

    @Test func heuristicOnlyForHeuristicallyCacheableStatusesOrPublic() {
        let lastModified = HTTPDate.format(at(-864_000))
        #expect(self.policy.freshnessLifetime(of: storedResponse(status: 404, ["Last-Modified": lastModified])) == 86_400)
        #expect(self.policy.freshnessLifetime(of: storedResponse(status: 302, ["Last-Modified": lastModified])) == 0)
        #expect(self.policy.freshnessLifetime(of: storedResponse(status: 500, ["Last-Modified": lastModified])) == 0)
        let publicError = storedResponse(status: 500, ["Last-Modified": lastModified, "Cache-Control": "public"])
        #expect(self.policy.freshnessLifetime(of: publicError) == 86_400)
    }

    @Test func lastModifiedInTheFutureGivesNoHeuristicLifetime() {
        let stored = storedResponse(["Last-Modified": HTTPDate.format(at(1_000))])
        #expect(self.policy.freshnessLifetime(of: stored) == 0)
    }

    @Test func noExplicitOrHeuristicInformationIsStale() {
        let stored = storedResponse(["Content-Type": "image/png"])
        #expect(self.policy.freshnessLifetime(of: stored) == 0)
        #expect(!self.policy.isFresh(stored, now: t0))
    }

    @Test func invalidMaxAgeIsStaleEvenWithExpires() {
        let stored = storedResponse(["Cache-Control": "max-age=ten", "Expires": HTTPDate.format(at(3600))])
        #expect(self.policy.freshnessLifetime(of: stored) == 0)
    }

    @Test func freshOnlyWhileLifetimeExceedsAge() {
        let stored = storedResponse(["Cache-Control": "max-age=60"])
        #expect(self.policy.isFresh(stored, now: at(59)))
        #expect(!self.policy.isFresh(stored, now: at(60)))
    }
}
