import AssetLoading
import Testing

@Suite("Storability (RFC 9111 3)")
struct StorabilityTests {
    func storable(
        _ status: Int = 200,
        method: String = "GET",
        _ response: HeaderFields = [:],
        request: HeaderFields = [:],
        shared: Bool = false
    ) -> Bool {
        FreshnessPolicy.isStorable(status: status, method: method, responseHeaders: response, requestHeaders: request, shared: shared)
    }

    func storable(_ response: HeaderFields, request: HeaderFields = [:], shared: Bool = false) -> Bool {
        self.storable(200, response, request: request, shared: shared)
    }

    @Test func heuristicallyCacheableStatusesWithoutDirectives() {
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(self.storable(status), "status \(status)")
        }
        for status in [201, 302, 303, 307, 400, 403, 500, 502, 503] {
            #expect(!self.storable(status), "status \(status)")
        }
    }

    @Test func explicitFreshnessMakesOtherStatusesStorable() {
        #expect(self.storable(302, ["Cache-Control": "max-age=60"]))
        #expect(self.storable(500, ["Expires": "Sun, 06 Nov 2044 08:49:37 GMT"]))
        #expect(self.storable(500, ["Expires": "0"]))
        #expect(self.storable(307, ["Cache-Control": "public"]))
        #expect(self.storable(307, ["Cache-Control": "private"]))
        #expect(!self.storable(307, ["Cache-Control": "private"], shared: true))
        #expect(self.storable(307, ["Cache-Control": "s-maxage=5"], shared: true))
        #expect(!self.storable(307, ["Cache-Control": "s-maxage=5"]))
    }

    @Test func mustUnderstandStoresOnlyUnderstoodStatusesAndOverridesNoStore() {
        #expect(self.storable(200, ["Cache-Control": "no-store, must-understand, max-age=60"]))
        #expect(self.storable(404, ["Cache-Control": "no-store, must-understand"], shared: true))
        #expect(!self.storable(299, ["Cache-Control": "must-understand, max-age=60"]))
        #expect(!self.storable(425, ["Cache-Control": "no-store, must-understand, max-age=60"], shared: true))
        #expect(!self.storable(200, ["Cache-Control": "no-store, max-age=60"]))
        #expect(CacheControl("must-understand").mustUnderstand)
        #expect(!CacheControl("must-understand").extensions.contains { $0.name == "must-understand" })
    }

    @Test func methodsAndPartialOrNotModifiedResponses() {
        #expect(self.storable(method: "HEAD"))
        #expect(self.storable(method: "get"))
        #expect(!self.storable(method: "POST", ["Cache-Control": "max-age=60"]))
        #expect(!self.storable(206, ["Cache-Control": "max-age=60"]))
        #expect(!self.storable(304, ["Cache-Control": "max-age=60"]))
        #expect(!self.storable(100))
    }

    @Test func noStoreInRequestOrResponse() {
        #expect(!self.storable(["Cache-Control": "no-store, max-age=60"]))
        #expect(!self.storable(["Cache-Control": "max-age=60"], request: ["Cache-Control": "no-store"]))
        #expect(self.storable(["Cache-Control": "no-cache"]))
    }

    @Test func varyStarIsNeverStored() {
        #expect(!self.storable(["Cache-Control": "max-age=60", "Vary": "Accept, *"]))
        #expect(self.storable(["Cache-Control": "max-age=60", "Vary": "Accept"]))
    }

    @Test func sharedCachesAndAuthorization() {
        let authorized: HeaderFields = ["Authorization": "Bearer x"]
        #expect(self.storable(["Cache-Control": "max-age=60"], request: authorized))
        #expect(!self.storable(["Cache-Control": "max-age=60"], request: authorized, shared: true))
        #expect(self.storable(["Cache-Control": "max-age=60, public"], request: authorized, shared: true))
        #expect(self.storable(["Cache-Control": "s-maxage=60"], request: authorized, shared: true))
        #expect(self.storable(["Cache-Control": "max-age=60, must-revalidate"], request: authorized, shared: true))
        #expect(!self.storable(["Cache-Control": "max-age=60, private"], shared: true))
    }

    @Test func instanceMethodUsesTheConfiguredMode() {
        let shared = FreshnessPolicy(configuration: .init(shared: true))
        #expect(!shared.isStorable(status: 200, method: "GET", responseHeaders: ["Cache-Control": "private"], requestHeaders: [:]))
        #expect(FreshnessPolicy().isStorable(status: 200, method: "GET", responseHeaders: ["Cache-Control": "private"], requestHeaders: [:]))
    }

    @Test func connectionFieldsAreNotStored() {
        let headers: HeaderFields = [
            "Connection": "close, X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5", "Transfer-Encoding": "chunked",
            "ETag": "\"a\"", "Content-Type": "image/png",
        ]
        #expect(FreshnessPolicy.headersToStore(headers) == ["ETag": "\"a\"", "Content-Type": "image/png"])
    }
}
