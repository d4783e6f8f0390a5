@testable import AssetLoading
import AssetStorage
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Temporary credentials (a session token, `X-Amz-Security-Token`) against radosgw's STS (a gateway
/// of the test store with STS on, `ASSETPIPE_TEST_S3_STS_ENDPOINT`): a valid
/// token reads and writes; an expired one (minted by `scripts/radosgw start` from a gateway 20
/// minutes behind, as STS gives no token shorter than 900 s) is a typed refusal after one request,
/// never retried, never taken for a clock that is off, nothing cached. radosgw 16.2 answers it
/// `403 AccessDenied` with an empty message; AWS answers `400 ExpiredToken`, "The provided token has
/// expired." (a `HEAD`, a bare `400`), which a ``FaultProxy`` plays.
@Suite(.enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3SessionTokenTests {
    /// The session's credentials, its expiration known or not.
    static func credentials(_ session: TestObjectStore.Session, knowingExpiration: Bool = true) throws -> S3Credentials {
        let expiration = try #require(S3Credentials.expiration(iso8601: session.expiration))
        return S3Credentials(
            accessKeyID: session.accessKey, secretAccessKey: session.secretKey, sessionToken: session.token,
            expiration: knowingExpiration ? expiration : nil)
    }

    /// A client of `endpoint` signing with `credentials`, three tries per operation.
    static func client(_ s3: S3TestStore, endpoint: String, credentials: S3Credentials) -> S3Client {
        let configuration = S3Client.Configuration(
            endpoint: endpoint, region: s3.configuration.region, credentials: credentials, retry: AssetLoaderHarness.fastRetries(maxAttempts: 3))
        return S3Client(configuration: configuration, httpClient: s3.httpClient)
    }

    static func session(_ s3: S3TestStore, expired: Bool) throws -> TestObjectStore.Session {
        try #require(
            expired ? s3.store.expiredSession : s3.store.session,
            "no ASSETPIPE_TEST_S3_\(expired ? "EXPIRED" : "SESSION")_*: start the store with scripts/radosgw start (which mints them)")
    }

    /// The gateway with STS on.
    static func stsEndpoint(_ s3: S3TestStore) throws -> String {
        try #require(s3.store.stsEndpoint, "no ASSETPIPE_TEST_S3_STS_ENDPOINT: start the store with scripts/radosgw start")
    }

    static func stsPort(_ s3: S3TestStore) throws -> Int {
        try #require(URLComponents(string: try Self.stsEndpoint(s3))?.port)
    }

    /// What an error says must name neither the token nor the secret nor a signature.
    /// A request's deadline: these tests check what an answer becomes, not how fast it comes. The
    /// proxy's tasks share Swift's cooperative pool with the rest of the parallel suite, and on a
    /// loaded 2-core CI run every request of this suite outlasted a 10 s deadline (2026-11-29).
    static let patience: TimeAmount = .seconds(120)

    static func expectNothingSecret(_ error: LoaderError?, _ session: TestObjectStore.Session) {
        let message = error?.message ?? ""
        #expect(!message.contains(session.token))
        #expect(!message.contains(session.secretKey))
        #expect(!message.contains("Signature="))
    }

    @Test func aValidSessionTokenSignsGetHeadAndPut() async throws {
        try await withS3TestStore { s3 in
            let session = try Self.session(s3, expired: false)
            let credentials = try Self.credentials(session)
            #expect(try #require(credentials.expiration) > Date())
            let client = Self.client(s3, endpoint: try Self.stsEndpoint(s3), credentials: credentials)
            let body = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try await client.put(s3.location("a b+%/é.bin"), body: body, contentType: "application/octet-stream")
            #expect(try await client.head(s3.location("a b+%/é.bin")).size == 5000)
            let response = try await client.send(.GET, s3.location("a b+%/é.bin"), deadline: .now() + Self.patience)
            #expect(Array(try await response.body.collect(upTo: 1 << 20).readableBytesView) == body)
            // what the session wrote is the user's: the user's own key reads it
            #expect(try await s3.client.head(s3.location("a b+%/é.bin")).size == 5000)
            // the loader's s3:// loads sign with the token too
            let harness = try AssetLoaderHarness { $0.s3 = client.configuration }
            let loaded = try await harness.loader.load(AssetRequest(url: URL(string: s3.location("a b+%/é.bin").url)!, kind: .raw))
            #expect(Array(try await harness.loader.data(for: loaded)) == body)
            try await harness.close()
        }
    }

    @Test(arguments: [true, false])
    func anExpiredSessionTokenIsOneTypedRefusal(knowingExpiration: Bool) async throws {
        try await withS3TestStore { s3 in
            try await s3.client.put(s3.location("k"), body: Array("x".utf8))
            let session = try Self.session(s3, expired: true)
            let credentials = try Self.credentials(session, knowingExpiration: knowingExpiration)
            #expect(try #require(try Self.credentials(session).expiration) < Date())
            let proxy = try await FaultProxy.start(upstreamPort: try Self.stsPort(s3)) { _, _ in .forward }
            let client = Self.client(s3, endpoint: proxy.baseURL, credentials: credentials)
            // radosgw's answer is 403 AccessDenied; knowing the expiration, the client names it
            let expected = knowingExpiration ? "ExpiredToken" : "AccessDenied"

            let getError = await #expect(throws: LoaderError.self) {
                _ = try await client.send(.GET, s3.location("k"), deadline: .now() + Self.patience)
            }
            #expect(getError == .http(403))
            #expect(getError?.s3Code == expected)
            #expect(getError?.message.contains("AccessDenied (403)") == true)
            #expect(proxy.requests == 1)
            let headError = await #expect(throws: LoaderError.self) { try await client.head(s3.location("k")) }
            #expect(headError == .http(403))
            #expect(headError?.s3Code == expected)
            #expect(proxy.requests == 2)
            let putError = await #expect(throws: LoaderError.self) { try await client.put(s3.location("k2"), body: [1, 2, 3]) }
            #expect(putError == .http(403))
            #expect(putError?.s3Code == expected)
            #expect(proxy.requests == 3)
            #expect(try await S3FaultTests.stored(s3, "k2") == nil)
            for error in [getError, headError, putError] {
                Self.expectNothingSecret(error, session)
                #expect(error?.message.contains("session token expired at") == knowingExpiration)
            }

            // the loader's s3:// load: one request, the same error, nothing cached
            let harness = try AssetLoaderHarness { $0.s3 = client.configuration }
            let url = s3.location("k").url
            let loadError = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw))
            }
            #expect(loadError == .http(403))
            #expect(loadError?.s3Code == expected)
            #expect(proxy.requests == 4)
            #expect(try S3FaultTests.cached(harness, url) == nil)
            #expect(harness.temporaryFiles.isEmpty)
            try await harness.close()
            #expect(client.configuration.skew.offset == 0)
            await proxy.stop()
        }
    }

    @Test(arguments: [true, false])
    func awsExpiredTokenAnswerIsOneTypedRefusal(knowingExpiration: Bool) async throws {
        try await withS3TestStore { s3 in
            let session = try Self.session(s3, expired: true)
            let credentials = try Self.credentials(session, knowingExpiration: knowingExpiration)
            let proxy = try await FaultProxy.start(upstreamPort: try Self.stsPort(s3)) { _, _ in .expiredToken }
            let client = Self.client(s3, endpoint: proxy.baseURL, credentials: credentials)

            let getError = await #expect(throws: LoaderError.self) {
                _ = try await client.send(.GET, s3.location("k"), deadline: .now() + Self.patience)
            }
            #expect(getError == .http(400))
            #expect(getError?.s3Code == "ExpiredToken")
            #expect(getError?.message.contains("ExpiredToken (400): The provided token has expired.") == true)
            #expect(proxy.requests == 1)
            let putError = await #expect(throws: LoaderError.self) { try await client.put(s3.location("k"), body: [1, 2, 3]) }
            #expect(putError == .http(400))
            #expect(putError?.s3Code == "ExpiredToken")
            #expect(proxy.requests == 2)
            // a HEAD's bare 400 says nothing: ExpiredToken only when the client knows the expiration
            let headError = await #expect(throws: LoaderError.self) { try await client.head(s3.location("k")) }
            #expect(headError == .http(400))
            #expect(headError?.s3Code == (knowingExpiration ? "ExpiredToken" : "HTTP 400"))
            #expect(proxy.requests == 3)
            for error in [getError, putError, headError] {
                Self.expectNothingSecret(error, session)  // the answer's <Token-0> is not repeated
            }

            let harness = try AssetLoaderHarness { $0.s3 = client.configuration }
            let url = s3.location("k").url
            let loadError = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw))
            }
            #expect(loadError?.s3Code == "ExpiredToken")
            #expect(proxy.requests == 4)
            #expect(try S3FaultTests.cached(harness, url) == nil)
            try await harness.close()
            #expect(client.configuration.skew.offset == 0)
            await proxy.stop()
        }
    }

    @Test func stsExpirationsParseFromAnswersAndTheEnvironment() throws {
        #expect(S3Credentials.expiration(iso8601: "2026-11-29T11:43:35Z") == Date(timeIntervalSince1970: 1_795_952_615))
        let fractional = try #require(S3Credentials.expiration(iso8601: "2026-11-29T11:43:35.029565093Z"))
        #expect(abs(fractional.timeIntervalSince1970 - 1_795_952_615.029565) < 0.001)
        #expect(S3Credentials.expiration(iso8601: "tomorrow") == nil)
        let configuration = try S3Client.Configuration.standard(environment: [
            "AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": "T",
            "AWS_CREDENTIAL_EXPIRATION": "2026-11-29T11:43:35Z", "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        ])
        #expect(configuration.credentials.expiration == Date(timeIntervalSince1970: 1_795_952_615))
    }
}
