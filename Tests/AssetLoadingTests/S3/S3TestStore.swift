import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
import Foundation

/// A client of the test radosgw with a fresh bucket, and a loader reading from it.
struct S3TestStore {
    let store: TestObjectStore
    let configuration: S3Client.Configuration
    let httpClient: HTTPClient
    let client: S3Client
    let bucket: String

    init(secret: String? = nil, _ configure: (inout S3Client.Configuration) -> Void = { _ in }) async throws {
        let store = try TestObjectStore.current()
        var configuration = S3Client.Configuration(
            endpoint: store.endpoint, region: store.region,
            credentials: S3Credentials(accessKeyID: store.accessKey, secretAccessKey: secret ?? store.secretKey),
            retry: AssetLoaderHarness.fastRetries())
        configure(&configuration)
        self.store = store
        self.configuration = configuration
        self.httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
        self.client = S3Client(configuration: configuration, httpClient: self.httpClient)
        self.bucket = TestObjectStore.uniqueBucket("loading")
        if secret == nil {
            do {
                try await self.client.createBucket(self.bucket)
            } catch {
                try? await self.httpClient.shutdown()
                throw error
            }
        }
    }

    func location(_ key: String) -> S3Location { S3Location(bucket: self.bucket, key: key) }

    /// A loader with this store configured.
    func loader() throws -> AssetLoaderHarness {
        try AssetLoaderHarness { $0.s3 = self.configuration }
    }

    func close() async throws {
        try await self.httpClient.shutdown()
    }
}

/// Runs `body` with a store, closing it afterwards.
func withS3TestStore<Result>(
    secret: String? = nil, _ configure: (inout S3Client.Configuration) -> Void = { _ in }, _ body: (S3TestStore) async throws -> Result
) async throws -> Result {
    let store = try await S3TestStore(secret: secret, configure)
    do {
        let result = try await body(store)
        try await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}
