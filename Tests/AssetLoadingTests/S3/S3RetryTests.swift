@testable import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Testing

/// What radosgw cannot be made to do on demand: `SlowDown` and `InternalError` answers, from a
/// loopback origin that plays an S3 endpoint (it does not check signatures: the radosgw tests do).
@Suite struct S3RetryTests {
    static let slowDown = TestResponse(
        status: 503, headers: [("Content-Type", "application/xml"), ("Retry-After", "0")],
        body: .bytes(Array("<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>".utf8)))

    static func configuration(_ origin: TestOrigin) -> S3Client.Configuration {
        S3Client.Configuration(
            endpoint: origin.baseURL, credentials: S3Credentials(accessKeyID: "AKIDTEST", secretAccessKey: "never-sent"),
            retry: AssetLoaderHarness.fastRetries())
    }

    @Test func theLoaderRetriesSlowDownAndSignsEveryAttempt() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/bkt/obj.bin", .sequence([Self.slowDown, TestResponse(status: 200, body: .bytes([1, 2, 3]))]))
            let harness = try AssetLoaderHarness { $0.s3 = Self.configuration(origin) }
            let response = try await harness.loader.load(AssetRequest(url: URL(string: "s3://bkt/obj.bin")!, kind: .raw))
            try await harness.close()
            #expect(response.attempts == 2)
            #expect(response.status == 200)
            let requests = origin.requests(path: "/bkt/obj.bin")
            #expect(requests.count == 2)
            for request in requests {
                let authorization = try #require(request.header("Authorization"))
                #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDTEST/"))
                #expect(!authorization.contains("never-sent"))
                #expect(request.header("x-amz-content-sha256") == SigV4Signer.emptyPayloadHash)
                #expect(request.header("x-amz-date") != nil)
            }
        }
    }

    @Test func slowDownThatLastsIsATyped503() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/bkt/obj.bin", .response(Self.slowDown))
            let harness = try AssetLoaderHarness { $0.s3 = Self.configuration(origin) }
            let error = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: "s3://bkt/obj.bin")!, kind: .raw))
            }
            try await harness.close()
            #expect(error == .http(503))
            #expect(error?.message.contains("SlowDown") == true)
            #expect(origin.requestCount(path: "/bkt/obj.bin") == 3)
        }
    }

    @Test func putRetriesAnInternalError() async throws {
        try await withTestOrigin { origin in
            let failure = TestResponse(status: 500, body: .bytes(Array("<Error><Code>InternalError</Code></Error>".utf8)))
            origin.setRoute("/bkt/up.txt", .sequence([failure, TestResponse(status: 200, headers: [("ETag", "\"e1\"")])]))
            let client = S3Client(configuration: Self.configuration(origin), httpClient: HTTPClient.shared)
            let eTag = try await client.put(S3Location(bucket: "bkt", key: "up.txt"), body: Array("hello".utf8), contentType: "text/plain")
            #expect(eTag == "\"e1\"")
            let requests = origin.requests(path: "/bkt/up.txt")
            #expect(requests.count == 2)
            #expect(requests.last?.header("x-amz-content-sha256") == SigV4Signer.sha256Hex(Array("hello".utf8)))
            #expect(requests.last?.header("Authorization")?.contains("content-type;host;x-amz-content-sha256;x-amz-date") == true)
        }
    }

    @Test func standardConfigurationFromTheEnvironmentAndAProfile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("S3Profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = dir.appendingPathComponent("credentials")
        try Data("[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n\n[work]\naws_access_key_id=WORK\naws_secret_access_key= worksecret \naws_session_token = tok\n".utf8).write(to: credentials)
        let config = dir.appendingPathComponent("config")
        try Data("[profile work]\nregion = eu-west-3\n".utf8).write(to: config)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": dir.path]

        let work = try S3Client.Configuration.standard(environment: files.merging(["AWS_PROFILE": "work"]) { $1 })
        #expect(work.credentials == S3Credentials(accessKeyID: "WORK", secretAccessKey: "worksecret", sessionToken: "tok"))
        #expect(work.region == "eu-west-3")
        #expect(work.endpoint == "https://s3.eu-west-3.amazonaws.com")
        #expect(work.addressing == .virtualHosted)

        let variables = try S3Client.Configuration.standard(environment: files.merging([
            "AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_DEFAULT_REGION": "ap-south-1",
            "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        ]) { $1 })
        #expect(variables.credentials.accessKeyID == "ENVKEY")
        #expect(variables.region == "ap-south-1")
        #expect(variables.endpoint == "http://127.0.0.1:9000")
        #expect(variables.addressing == .path)

        #expect(try S3Client.Configuration.standard(environment: files).credentials.accessKeyID == "DEF")
        let none = #expect(throws: LoaderError.self) {
            try S3Client.Configuration.standard(environment: ["HOME": dir.path, "AWS_PROFILE": "absent"])
        }
        #expect(none?.message.contains("absent") == true)
    }

    @Test func addressesEncodeTheKeyOnce() throws {
        let credentials = S3Credentials(accessKeyID: "A", secretAccessKey: "B")
        let location = try S3Location(url: "s3://photos/a%20b+%25/%C3%A9.png")
        #expect(location.key == "a b+%/é.png")
        #expect(S3Client.Configuration(endpoint: "http://127.0.0.1:7480", credentials: credentials).address(of: location).url
            == "http://127.0.0.1:7480/photos/a%20b%2B%25/%C3%A9.png")
        let virtual = S3Client.Configuration(endpoint: "https://s3.eu-west-1.amazonaws.com", credentials: credentials, addressing: .virtualHosted)
        let address = virtual.address(of: location, query: [("uploadId", "x/y")])
        #expect(address.url == "https://photos.s3.eu-west-1.amazonaws.com/a%20b%2B%25/%C3%A9.png?uploadId=x%2Fy")
        #expect(address.host == "photos.s3.eu-west-1.amazonaws.com")
        #expect(throws: LoaderError.self) { try S3Location(url: "s3://Bad_Bucket/k") }
        #expect(throws: LoaderError.self) { try S3Location(url: "s3://bucket/k?versionId=1") }
    }
}
