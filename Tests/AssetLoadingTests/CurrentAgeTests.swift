import AssetLoading
import Foundation
import Testing

/// RFC 9111 4.2.3, with numbers worked by hand:
///
/// ```
/// apparent_age          = max(0, response_time - date_value)
/// response_delay        = response_time - request_time
/// corrected_age_value   = age_value + response_delay
/// corrected_initial_age = max(apparent_age, corrected_age_value)
/// resident_time         = now - response_time
/// current_age           = corrected_initial_age + resident_time
/// ```
@Suite("Current age (RFC 9111 4.2.3)")
struct CurrentAgeTests {
    let policy = FreshnessPolicy()

    @Test func ageHeaderAndResponseDelayDominate() {
        // request at 0, response at 2 (delay 2), Date at -1 (apparent age 3), Age: 10
        // corrected_age_value = 10 + 2 = 12; corrected_initial_age = max(3, 12) = 12
        // at now = 30: resident 28, current age 40
        let stored = storedResponse(
            ["Date": HTTPDate.format(at(-1)), "Age": "10"],
            requestTime: at(0),
            responseTime: at(2)
        )
        #expect(self.policy.currentAge(of: stored, now: at(30)) == 40)
        #expect(self.policy.currentAge(of: stored, now: at(2)) == 12)
    }

    @Test func apparentAgeDominatesWithoutAgeHeader() {
        // Date 12 s before the response arrived: apparent age 12 > corrected age value 0 + 2
        let stored = storedResponse(["Date": HTTPDate.format(at(-10))], requestTime: at(0), responseTime: at(2))
        #expect(self.policy.currentAge(of: stored, now: at(2)) == 12)
        #expect(self.policy.currentAge(of: stored, now: at(62)) == 72)
    }

    @Test func dateAheadOfOurClockGivesNoNegativeAge() {
        // the origin's clock is 8 s ahead: apparent age max(0, -8) = 0; only the delay of 2 counts
        let stored = storedResponse(["Date": HTTPDate.format(at(10))], requestTime: at(0), responseTime: at(2))
        #expect(self.policy.currentAge(of: stored, now: at(2)) == 2)
    }

    @Test func missingDateCountsAsTheResponseTime() {
        let stored = storedResponse(["Age": "5"], requestTime: at(0), responseTime: at(1), addDate: false)
        // corrected age value 5 + 1 = 6, plus resident 9
        #expect(self.policy.currentAge(of: stored, now: at(10)) == 15)
    }

    @Test func invalidAgeIsIgnoredAndListAgeUsesTheFirstMember() {
        let invalid = storedResponse(["Age": "soon"])
        #expect(invalid.age == nil)
        #expect(self.policy.currentAge(of: invalid, now: at(3)) == 3)
        let list = storedResponse(["Age": "5, 7"])
        #expect(list.age == 5)
        #expect(self.policy.currentAge(of: list, now: t0) == 5)
    }

    @Test func ageMakesAFreshResponseStaleSooner() {
        // max-age=100 but it was already 90 s old when it arrived
        let stored = storedResponse(["Cache-Control": "max-age=100", "Age": "90"])
        #expect(self.policy.isFresh(stored, now: at(9)))
        #expect(!self.policy.isFresh(stored, now: at(10)))
    }
}
