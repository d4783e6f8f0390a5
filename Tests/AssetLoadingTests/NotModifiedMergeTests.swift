import AssetLoading
import Foundation
import Testing

@Suite("304 header merge (RFC 9111 3.2, 4.3.4)")
struct NotModifiedMergeTests {
    let original = storedResponse([
        "ETag": "\"v1\"",
        "Cache-Control": "max-age=60",
        "Content-Length": "1000",
        "Content-Type": "image/png",
        "Content-Encoding": "gzip",
        "X-Old": "kept",
    ])

    @Test func replacesAllButFramingAndBodyFields() throws {
        let notModified: HeaderFields = [
            "ETag": "\"v1\"",
            "Cache-Control": "max-age=3600",
            "Cache-Control": "public",
            "Content-Length": "0",
            "Content-Encoding": "identity",
            "Connection": "close, X-Hop",
            "X-Hop": "dropped",
            "X-New": "added",
        ]
        let merged = try #require(self.original.updatedHeaders(afterNotModified: notModified))
        #expect(merged.values(for: "Cache-Control") == ["max-age=3600", "public"])
        #expect(merged["Content-Length"] == "1000")
        #expect(merged["Content-Encoding"] == "gzip")
        #expect(merged["Content-Type"] == "image/png")
        #expect(merged["X-Old"] == "kept")
        #expect(merged["X-New"] == "added")
        #expect(!merged.contains("X-Hop"))
        #expect(!merged.contains("Connection"))
    }

    @Test func strongValidatorMustMatch() {
        #expect(self.original.updatedHeaders(afterNotModified: ["ETag": "\"v2\""]) == nil)
        let weakStored = storedResponse(["ETag": "W/\"v1\""])
        #expect(weakStored.updatedHeaders(afterNotModified: ["ETag": "\"v1\""]) == nil)
    }

    @Test func weakValidatorMatchesWeakly() {
        let weakStored = storedResponse(["ETag": "W/\"v1\"", "X-A": "1"])
        #expect(weakStored.updatedHeaders(afterNotModified: ["ETag": "W/\"v1\"", "X-A": "2"])?["X-A"] == "2")
        #expect(self.original.updatedHeaders(afterNotModified: ["ETag": "W/\"v1\""]) != nil)
        #expect(weakStored.updatedHeaders(afterNotModified: ["ETag": "W/\"v2\""]) == nil)
    }

    @Test func lastModifiedSelectsWhenThereIsNoETag() {
        let date = HTTPDate.format(at(-1000))
        let stored = storedResponse(["Last-Modified": date, "Cache-Control": "max-age=1"])
        #expect(stored.updatedHeaders(afterNotModified: ["Last-Modified": date, "Cache-Control": "max-age=2"])?["Cache-Control"] == "max-age=2")
        #expect(stored.updatedHeaders(afterNotModified: ["Last-Modified": HTTPDate.format(at(-5))]) == nil)
        #expect(stored.updatedHeaders(afterNotModified: ["Cache-Control": "max-age=3"])?["Cache-Control"] == "max-age=3")
        // an ETag in the 304 that the stored response lacks selects nothing
        #expect(stored.updatedHeaders(afterNotModified: ["ETag": "\"x\""]) == nil)
    }

    @Test func revalidatedResponseIsFreshAgain() throws {
        let policy = FreshnessPolicy()
        #expect(!policy.isFresh(self.original, now: at(500)))
        let refreshed = try #require(
            self.original.revalidated(
                withNotModified: ["ETag": "\"v1\"", "Date": HTTPDate.format(at(501))],
                requestTime: at(500),
                responseTime: at(501)
            )
        )
        #expect(refreshed.requestTime == at(500))
        #expect(refreshed.responseTime == at(501))
        #expect(policy.currentAge(of: refreshed, now: at(511)) == 11)
        #expect(policy.decide(stored: refreshed, request: [:], now: at(511)) == .fresh(age: 11))
    }

    @Test func entityTags() {
        #expect(EntityTag("\"abc\"") == EntityTag(opaqueTag: "abc"))
        #expect(EntityTag("W/\"abc\"") == EntityTag(opaqueTag: "abc", isWeak: true))
        #expect(EntityTag("abc") == nil)
        #expect(EntityTag("\"a\"b\"") == nil)
        #expect(EntityTag("W/\"x\"")?.fieldValue == "W/\"x\"")
        #expect(!EntityTag(opaqueTag: "a", isWeak: true).stronglyMatches(EntityTag(opaqueTag: "a", isWeak: true)))
        #expect(EntityTag(opaqueTag: "a", isWeak: true).weaklyMatches(EntityTag(opaqueTag: "a")))
    }
}
