import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The S3 client and `s3://` loads against Ceph's radosgw on loopback (`scripts/radosgw`), which
/// checks every signature. Fails, never passes unrun, when no radosgw is set up (see `TestObjectStore`).
@Suite(.enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3RadosGatewayTests {
    /// A key with a space, `+`, `%`, `/`, `~` and non-ASCII characters.
    static let awkwardKey = "dir one/a b+c%d~é日本.png"

    @Test func putHeadAndLoadAnAwkwardKey() async throws {
        try await withS3TestStore { s3 in
            let body = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let location = s3.location(Self.awkwardKey)
            #expect(location.url.hasSuffix("/dir%20one/a%20b%2Bc%25d~%C3%A9%E6%97%A5%E6%9C%AC.png"))
            #expect(try S3Location(url: location.url) == location)
            let eTag = try await s3.client.put(location, body: body, contentType: "image/png")
            let info = try await s3.client.head(location)
            #expect(info.size == 5000)
            #expect(info.eTag == eTag)
            #expect(info.contentType == "image/png")

            let harness = try s3.loader()
            let response = try await harness.loader.load(AssetRequest(url: URL(string: location.url)!, kind: .image))
            #expect(response.outcome == .downloaded)
            #expect(response.status == 200)
            #expect(Array(try await harness.loader.data(for: response)) == body)
            #expect(response.headers["ETag"] == eTag)
            // a `+` written as such in the URL is the same key as `%2B`
            let plus = "s3://\(s3.bucket)/dir%20one/a%20b+c%25d~%C3%A9%E6%97%A5%E6%9C%AC.png"
            let again = try await harness.loader.load(AssetRequest(url: URL(string: plus)!, kind: .image, strategy: .networkOnly))
            #expect(Array(try await harness.loader.data(for: again)) == body)
            try await harness.close()
        }
    }

    @Test func aWrongSecretIsATyped403() async throws {
        let key = "refused-on-purpose/k"  // the path `scripts/radosgw refusals` lets through
        let bucket = try await withS3TestStore { s3 in
            try await s3.client.put(s3.location(key), body: Array("x".utf8))
            return s3.bucket
        }
        try await withS3TestStore(secret: "not-the-secret") { s3 in
            let location = S3Location(bucket: bucket, key: key)
            let error = await #expect(throws: LoaderError.self) { try await s3.client.head(location) }
            #expect(error == .http(403))
            let harness = try s3.loader()
            let loadError = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: location.url)!, kind: .raw))
            }
            try await harness.close()
            #expect(loadError == .http(403))
            #expect(loadError?.message.contains("SignatureDoesNotMatch") == true)
            #expect(loadError?.message.contains("not-the-secret") == false)
            #expect(loadError?.message.contains("Signature=") == false)
        }
    }

    @Test func aMissingKeyIsATyped404() async throws {
        try await withS3TestStore { s3 in
            let harness = try s3.loader()
            let error = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: s3.location("nothing here").url)!, kind: .raw))
            }
            try await harness.close()
            #expect(error == .http(404))
            #expect(error?.message.contains("NoSuchKey") == true)
        }
    }

    @Test func rangeAndConditionalReads() async throws {
        try await withS3TestStore { s3 in
            let body = Array("0123456789abcdefghij".utf8)
            let location = s3.location("range me.txt")
            let eTag = try #require(try await s3.client.put(location, body: body, contentType: "text/plain"))

            // Range, signed, through the loader's one door (the way range reads and the chunk store go)
            let harness = try s3.loader()
            var ranged = HTTPClientRequest(url: location.url)
            ranged.headers.add(name: "Range", value: "bytes=5-9")
            let answer = try await harness.loader.send(ranged, deadline: .now() + .seconds(30))
            #expect(answer.response.status == .partialContent)
            #expect(answer.response.headers.first(name: "Content-Range") == "bytes 5-9/20")
            #expect(Array(try await answer.response.body.collect(upTo: 1024).readableBytesView) == Array("56789".utf8))

            // If-None-Match with the object's ETag: 304
            let notModified = try await s3.client.send(
                .GET, location, headers: ["If-None-Match": eTag], deadline: .now() + .seconds(30))
            #expect(notModified.status == .notModified)

            // the loader revalidates its stale copy with the ETag: a 304, no body again
            let first = try await harness.loader.load(AssetRequest(url: URL(string: location.url)!, kind: .raw))
            #expect(first.outcome == .downloaded)
            let second = try await harness.loader.load(
                AssetRequest(url: URL(string: location.url)!, kind: .raw, cacheControl: "max-age=0"))
            #expect(second.outcome == .revalidated)
            #expect(second.bytesReceived == 0)
            #expect(Array(try await harness.loader.data(for: second)) == body)
            try await harness.close()
        }
    }

    @Test func headThroughTheLoader() async throws {
        try await withS3TestStore { s3 in
            let location = s3.location("h.bin")
            try await s3.client.put(location, body: [UInt8](repeating: 1, count: 1234))
            let harness = try s3.loader()
            var head = HTTPClientRequest(url: location.url)
            head.method = .HEAD
            let answer = try await harness.loader.send(head, deadline: .now() + .seconds(30))
            try await harness.close()
            #expect(answer.response.status == .ok)
            #expect(answer.response.headers.first(name: "Content-Length") == "1234")
            #expect(answer.response.headers.first(name: "Last-Modified") != nil)
        }
    }

    @Test func multipartUpload() async throws {
        try await withS3TestStore({ $0.multipartThreshold = 6 * 1024 * 1024 }) { s3 in
            let body = Array((0..<(11 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 / 3) })
            let location = s3.location("big/multi part.bin")
            try await s3.client.put(location, body: body, contentType: "application/octet-stream")
            let info = try await s3.client.head(location)
            #expect(info.size == Int64(body.count))
            #expect(info.eTag?.hasSuffix("-2\"") == true)  // 8 MiB + the rest

            let harness = try AssetLoaderHarness {
                $0.s3 = s3.configuration
            }
            let response = try await harness.loader.load(AssetRequest(url: URL(string: location.url)!, kind: .raw))
            #expect(try await harness.loader.data(for: response) == Data(body))
            try await harness.close()
        }
    }

    @Test func noStoreConfiguredIsUnsupported() async throws {
        let harness = try AssetLoaderHarness()
        let error = await #expect(throws: LoaderError.self) {
            try await harness.loader.load(AssetRequest(url: URL(string: "s3://bucket/key")!, kind: .raw))
        }
        try await harness.close()
        #expect(error == .unsupportedScheme)
    }
}
