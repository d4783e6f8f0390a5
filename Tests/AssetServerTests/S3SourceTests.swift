import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Testing

/// `/v1/asset` and `/v1/image` with `s3://` sources from the test radosgw (`scripts/radosgw`): only
/// the buckets the service allows are read.
@Suite("s3:// sources", .enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3SourceTests {
    @Test func assetsAndImagesFromAnAllowedBucketOnly() async throws {
        let store = try TestObjectStore.current()
        let configuration = S3Client.Configuration(
            endpoint: store.endpoint, region: store.region,
            credentials: S3Credentials(accessKeyID: store.accessKey, secretAccessKey: store.secretKey))
        let client = S3Client(configuration: configuration, httpClient: HTTPClient.shared)
        let allowed = TestObjectStore.uniqueBucket("served")
        let other = TestObjectStore.uniqueBucket("other")
        try await client.createBucket(allowed)
        try await client.createBucket(other)
        let png = try ServerHarness.fixture("imaging/rgb-alpha-8-sRGB.png")
        let image = S3Location(bucket: allowed, key: "img/a b.png")
        try await client.put(image, body: png, contentType: "image/png")
        try await client.put(S3Location(bucket: allowed, key: "t.txt"), body: Array("hello s3".utf8), contentType: "text/plain")
        try await client.put(S3Location(bucket: other, key: "t.txt"), body: Array("not yours".utf8), contentType: "text/plain")

        try await ServerHarness.with({ server, _ in
            server.s3 = configuration
            server.allowedS3Buckets = [allowed]
        }) { harness in
            let text = try await harness.send("/v1/asset?url=\(ServerHarness.encode("s3://\(allowed)/t.txt"))")
            #expect(text.status == 200)
            #expect(text.text == "hello s3")
            #expect(text.header("ETag") != nil)

            let refused = try await harness.send("/v1/asset?url=\(ServerHarness.encode("s3://\(other)/t.txt"))")
            #expect(refused.status == 403)
            #expect(refused.errorCode == "forbidden_destination")

            let missing = try await harness.send("/v1/asset?url=\(ServerHarness.encode("s3://\(allowed)/none"))")
            #expect(missing.status == 404, "\(missing.text)")  // NoSuchKey: the origin's 404 passed on

            let variant = try await harness.send(
                "/v1/image?url=\(ServerHarness.encode(image.url))&w=32&format=png", headers: [("Accept", "image/png")])
            #expect(variant.status == 200, "\(variant.text)")
            #expect(variant.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }
}
