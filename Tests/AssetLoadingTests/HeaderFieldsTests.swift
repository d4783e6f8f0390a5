import AssetLoading
import Testing

@Suite("HeaderFields")
struct HeaderFieldsTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        let headers: HeaderFields = ["Cache-Control": "max-age=1", "X-A": " one ", "cache-control": "public"]
        #expect(headers["CACHE-CONTROL"] == "max-age=1")
        #expect(headers.values(for: "cache-control") == ["max-age=1", "public"])
        #expect(headers.combinedValue(for: "Cache-Control") == "max-age=1, public")
        #expect(headers["x-a"] == "one")
        #expect(headers["missing"] == nil)
        #expect(headers.count == 3)
    }

    @Test func listMembersRespectQuotes() {
        let headers: HeaderFields = ["Cache-Control": "no-cache=\"a, b\", max-age=5", "Cache-Control": " , public"]
        #expect(headers.listMembers(for: "cache-control") == ["no-cache=\"a, b\"", "max-age=5", "public"])
    }

    @Test func replaceKeepsPositionAndRemovesDuplicates() {
        var headers: HeaderFields = ["A": "1", "B": "2", "a": "3", "C": "4"]
        headers.replace(name: "a", value: "9")
        #expect(headers.fields.map(\.name) == ["a", "B", "C"])
        #expect(headers["A"] == "9")
        headers.replace(name: "D", value: "5")
        #expect(headers["d"] == "5")
        headers.removeAll(named: "b")
        #expect(!headers.contains("B"))
    }
}
