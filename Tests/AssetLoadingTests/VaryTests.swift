import AssetLoading
import Testing

@Suite("Vary (RFC 9111 4.1)")
struct VaryTests {
    func stored(vary: String?, request: HeaderFields) -> StoredResponse {
        var headers: HeaderFields = ["Cache-Control": "max-age=60"]
        if let vary { headers.append(name: "Vary", value: vary) }
        return storedResponse(headers, varyingRequestHeaders: Vary.selectingHeaders(responseHeaders: headers, requestHeaders: request))
    }

    @Test func selectsOnlyTheNamedRequestFields() {
        let selected = Vary.selectingHeaders(
            responseHeaders: ["Vary": "Accept-Encoding, accept"],
            requestHeaders: ["Accept": "image/*", "User-Agent": "x", "Accept-Encoding": "gzip"]
        )
        #expect(selected == ["accept-encoding": "gzip", "accept": "image/*"])
        #expect(Vary.fieldNames(in: ["Vary": "Accept", "vary": "ACCEPT, Origin"]) == ["accept", "origin"])
    }

    @Test func normalisesWhitespaceAndFieldLines() {
        let stored = self.stored(vary: "Accept-Encoding", request: ["Accept-Encoding": "gzip, br"])
        #expect(Vary.matches(stored: stored, request: ["accept-encoding": "gzip,br"]))
        #expect(Vary.matches(stored: stored, request: ["Accept-Encoding": "gzip", "Accept-Encoding": " br "]))
        #expect(!Vary.matches(stored: stored, request: ["Accept-Encoding": "br, gzip"]))
        #expect(!Vary.matches(stored: stored, request: ["Accept-Encoding": "br"]))
    }

    @Test func missingOnBothSidesMatchesMissingOnOneDoesNot() {
        let withoutHeader = self.stored(vary: "Accept-Language", request: [:])
        #expect(Vary.matches(stored: withoutHeader, request: ["Accept": "x"]))
        #expect(!Vary.matches(stored: withoutHeader, request: ["Accept-Language": "en"]))
        let withHeader = self.stored(vary: "Accept-Language", request: ["Accept-Language": "en"])
        #expect(!Vary.matches(stored: withHeader, request: [:]))
    }

    @Test func starNeverMatches() {
        let stored = self.stored(vary: "*", request: [:])
        #expect(Vary.isUnmatchable(stored.headers))
        #expect(!Vary.matches(stored: stored, request: [:]))
    }

    @Test func noVaryAlwaysMatches() {
        let stored = self.stored(vary: nil, request: ["Accept": "a"])
        #expect(Vary.matches(stored: stored, request: ["Accept": "b"]))
    }
}
