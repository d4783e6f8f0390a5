import AssetLoading
import NIOHTTP1
import Testing

@Suite("HeaderFields and NIO HTTPHeaders")
struct HeaderFieldsNIOTests {
    @Test func convertsBothWaysKeepingOrderAndDuplicates() {
        let nio = HTTPHeaders([("Cache-Control", "max-age=5"), ("ETag", "\"a\""), ("cache-control", "public")])
        let fields = HeaderFields(nio)
        #expect(fields.values(for: "Cache-Control") == ["max-age=5", "public"])
        #expect(CacheControl(headers: fields).isPublic)
        let back = fields.httpHeaders
        #expect(back.map(\.name) == ["Cache-Control", "ETag", "cache-control"])
        #expect(back["etag"] == ["\"a\""])
    }
}
