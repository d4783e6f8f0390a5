import AssetLoading
import Testing

@Suite("CacheControl parsing")
struct CacheControlTests {
    @Test func emptyHasNoDirective() {
        #expect(CacheControl("").isEmpty)
        #expect(CacheControl(" , ,").isEmpty)
        #expect(!CacheControl("public").isEmpty)
    }

    @Test func responseDirectives() {
        let directives = CacheControl(
            "max-age=60, s-maxage=120, no-store, must-revalidate, proxy-revalidate, public, immutable, "
                + "stale-while-revalidate=30, stale-if-error=600, no-transform"
        )
        #expect(directives.maxAge == 60)
        #expect(directives.sharedMaxAge == 120)
        #expect(directives.noStore)
        #expect(directives.mustRevalidate)
        #expect(directives.proxyRevalidate)
        #expect(directives.isPublic)
        #expect(directives.immutable)
        #expect(directives.staleWhileRevalidate == 30)
        #expect(directives.staleIfError == 600)
        #expect(directives.noTransform)
        #expect(!directives.noCache)
        #expect(!directives.isPrivate)
        #expect(directives.extensions.isEmpty)
    }

    @Test func requestDirectives() {
        let directives = CacheControl("max-age=0, max-stale=30, min-fresh=10, no-cache, only-if-cached, no-store")
        #expect(directives.maxAge == 0)
        #expect(directives.maxStale == .seconds(30))
        #expect(directives.minFresh == 10)
        #expect(directives.noCache)
        #expect(directives.onlyIfCached)
        #expect(directives.noStore)
    }

    @Test func maxStaleWithoutValueIsUnlimited() {
        #expect(CacheControl("max-stale").maxStale == .unlimited)
        #expect(CacheControl("max-stale").maxStale?.allows(staleness: 1e9) == true)
        #expect(CacheControl("max-stale=5").maxStale?.allows(staleness: 5) == true)
        #expect(CacheControl("max-stale=5").maxStale?.allows(staleness: 5.5) == false)
        #expect(CacheControl("max-stale=abc").maxStale == nil)
        #expect(CacheControl("max-stale=5, max-stale").maxStale == .unlimited)
    }

    @Test func noCacheAndPrivateWithFieldNames() {
        let directives = CacheControl("no-cache=\"Set-Cookie, X-Token\", private=\"Authorization\"")
        #expect(!directives.noCache)
        #expect(directives.noCacheFieldNames == ["set-cookie", "x-token"])
        #expect(!directives.isPrivate)
        #expect(directives.privateFieldNames == ["authorization"])
        let bare = CacheControl("no-cache, private")
        #expect(bare.noCache && bare.isPrivate)
        #expect(bare.noCacheFieldNames.isEmpty && bare.privateFieldNames.isEmpty)
    }

    @Test func toleratesCaseSpacesAndQuotes() {
        let directives = CacheControl("  MAX-AGE=\"60\" ,No-Store,   Stale-While-Revalidate = 30 ")
        #expect(directives.maxAge == 60)
        #expect(directives.noStore)
        #expect(directives.staleWhileRevalidate == 30)
    }

    @Test func combinesRepeatedFieldLines() {
        let headers: HeaderFields = ["Cache-Control": "public", "Content-Type": "image/png", "cache-control": "max-age=300"]
        let directives = CacheControl(headers: headers)
        #expect(directives.isPublic)
        #expect(directives.maxAge == 300)
    }

    @Test func keepsUnknownDirectives() {
        let directives = CacheControl("community=\"UCI\", x-foo, max-age=5, ext=token")
        #expect(directives.maxAge == 5)
        #expect(directives.extensions == [
            CacheControl.Extension(name: "community", argument: "UCI"),
            CacheControl.Extension(name: "x-foo", argument: nil),
            CacheControl.Extension(name: "ext", argument: "token"),
        ])
    }

    @Test func commasInsideQuotesDoNotSplitDirectives() {
        let directives = CacheControl("no-cache=\"a,b\", max-age=7")
        #expect(directives.noCacheFieldNames == ["a", "b"])
        #expect(directives.maxAge == 7)
    }

    @Test(arguments: ["max-age=abc", "max-age=-1", "max-age=", "max-age", "max-age=1.5", "max-age=60, max-age=120", "max-age=60, max-age=x"])
    func invalidOrConflictingMaxAgeMeansStale(_ value: String) {
        #expect(CacheControl(value).maxAge == 0)
    }

    @Test func identicalDuplicatesAreHarmless() {
        #expect(CacheControl(fieldValues: ["max-age=60", "max-age=60"]).maxAge == 60)
        #expect(CacheControl("s-maxage=10, s-maxage=20").sharedMaxAge == 0)
    }

    @Test func invalidNonFreshnessArgumentsAreIgnored() {
        let directives = CacheControl("stale-while-revalidate=soon, stale-if-error=-3, min-fresh=x")
        #expect(directives.staleWhileRevalidate == nil)
        #expect(directives.staleIfError == nil)
        #expect(directives.minFresh == nil)
        #expect(CacheControl("min-fresh=x, min-fresh=20").minFresh == 20)
    }

    @Test func hugeValuesAreCappedAt2To31() {
        #expect(CacheControl("max-age=99999999999999999999999999").maxAge == 2_147_483_648)
        #expect(CacheControl("max-age=2147483647").maxAge == 2_147_483_647)
    }
}
