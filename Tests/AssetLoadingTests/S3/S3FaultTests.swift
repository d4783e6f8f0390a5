@testable import AssetLoading
import AssetStorage
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing

/// Faults between the client and radosgw, made by a loopback proxy of the tests' own
/// (``FaultProxy``): `503 SlowDown` answers, a connection cut on the way down (in an answer) or up
/// (in an upload), and the store gone in the middle of a run. Each ends in a good answer or a typed
/// `LoaderError`, and nothing partial is kept: not in the disk cache, not in the bucket.
@Suite(.enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3FaultTests {
    static let object = Array((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    /// `s3`'s configuration aimed at `proxy`, with `attempts` tries per operation.
    static func through(_ proxy: FaultProxy, _ s3: S3TestStore, attempts: Int = 3) -> S3Client.Configuration {
        S3Client.Configuration(
            endpoint: proxy.baseURL, region: s3.configuration.region, credentials: s3.configuration.credentials,
            partSize: 5 * 1024 * 1024, multipartThreshold: 6 * 1024 * 1024, retry: AssetLoaderHarness.fastRetries(maxAttempts: attempts))
    }

    static func upstreamPort(_ s3: S3TestStore) throws -> Int {
        try #require(URLComponents(string: s3.configuration.endpoint)?.port)
    }

    /// Whether the disk cache holds an entry for `url`, and if so that it is all of `body`.
    static func cached(_ harness: AssetLoaderHarness, _ url: String) throws -> [UInt8]? {
        try harness.cache.data(forKey: AssetLoader.defaultCacheKey(for: url)).map(Array.init)
    }

    /// What the bucket holds under `key`, read straight from radosgw: nil when nothing.
    static func stored(_ s3: S3TestStore, _ key: String) async throws -> Int64? {
        do {
            return try await s3.client.head(s3.location(key)).size
        } catch where error == .http(404) {
            return nil
        }
    }

    @Test func slowDownIsRetriedToAGoodAnswerAndOneThatLastsIsATyped503() async throws {
        try await withS3TestStore { s3 in
            try await s3.client.put(s3.location("a.bin"), body: Self.object)
            let slowDowns = Mutex(2)
            let proxy = try await FaultProxy.start(upstreamPort: try Self.upstreamPort(s3)) { _, _ in
                slowDowns.withLock { left in
                    guard left != 0 else { return .forward }
                    left -= 1
                    return .slowDown
                }
            }
            let configuration = Self.through(proxy, s3)
            let harness = try AssetLoaderHarness { $0.s3 = configuration }
            let url = s3.location("a.bin").url
            // two SlowDowns, then the object: loaded whole
            let response = try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw))
            #expect(response.attempts == 3)
            #expect(Array(try await harness.loader.data(for: response)) == Self.object)
            #expect(try Self.cached(harness, url) == Self.object)
            // a PUT after two SlowDowns: stored whole
            slowDowns.withLock { $0 = 2 }
            try await S3Client(configuration: configuration, httpClient: s3.httpClient).put(s3.location("b.bin"), body: Self.object)
            #expect(try await Self.stored(s3, "b.bin") == Int64(Self.object.count))

            // SlowDown that lasts: a typed 503 naming it, nothing cached, nothing stored
            slowDowns.withLock { $0 = -1 }
            let other = s3.location("c.bin").url
            try await s3.client.put(s3.location("c.bin"), body: Self.object)
            let error = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: other)!, kind: .raw))
            }
            #expect(error == .http(503))
            #expect(error?.s3Code == "SlowDown")
            #expect(try Self.cached(harness, other) == nil)
            let putError = await #expect(throws: LoaderError.self) {
                try await S3Client(configuration: configuration, httpClient: s3.httpClient).put(s3.location("d.bin"), body: Self.object)
            }
            #expect(putError?.s3Code == "SlowDown")
            #expect(try await Self.stored(s3, "d.bin") == nil)
            #expect(harness.temporaryFiles.isEmpty)
            try await harness.close()
            await proxy.stop()
        }
    }

    @Test func aCutAnswerIsRetriedOrATypedErrorAndNeverCachedInPart() async throws {
        try await withS3TestStore { s3 in
            try await s3.client.put(s3.location("a.bin"), body: Self.object)
            let cuts = Mutex(1)
            let proxy = try await FaultProxy.start(upstreamPort: try Self.upstreamPort(s3)) { _, _ in
                cuts.withLock { left in
                    guard left != 0 else { return .forward }
                    left -= 1
                    return .cutResponse(afterBytes: 50_000)
                }
            }
            let harness = try AssetLoaderHarness { $0.s3 = Self.through(proxy, s3) }
            let url = s3.location("a.bin").url
            let response = try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw))
            #expect(response.attempts == 2)
            #expect(Array(try await harness.loader.data(for: response)) == Self.object)

            // every answer cut: a typed error, and no entry (not a part of one) in the cache
            cuts.withLock { $0 = -1 }
            let other = "s3://\(s3.bucket)/a.bin?versionless"
            let error = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw, cacheKey: other, strategy: .networkOnly))
            }
            #expect(error == .truncated || error == .connection)
            #expect(try Self.cached(harness, other) == nil)
            #expect(try harness.cache.data(forKey: other) == nil)
            #expect(harness.temporaryFiles.isEmpty)
            try await harness.close()
            await proxy.stop()
        }
    }

    @Test func aCutUploadIsRetriedOrATypedErrorAndLeavesNothingInTheBucket() async throws {
        try await withS3TestStore { s3 in
            let cuts = Mutex(1)
            let proxy = try await FaultProxy.start(upstreamPort: try Self.upstreamPort(s3)) { request, _ in
                guard request.method == "PUT" else { return .forward }
                return cuts.withLock { left in
                    guard left != 0 else { return .forward }
                    left -= 1
                    return .cutRequest(afterBodyBytes: request.bodyLength / 2)
                }
            }
            let client = S3Client(configuration: Self.through(proxy, s3), httpClient: s3.httpClient)
            // one cut, then the retry: the object whole
            try await client.put(s3.location("a.bin"), body: Self.object)
            let whole = try await s3.client.send(.GET, s3.location("a.bin"), deadline: .now() + .seconds(10))
            #expect(Array(try await whole.body.collect(upTo: 1 << 20).readableBytesView) == Self.object)

            // every upload cut: a typed error, and no object, not a part of one
            cuts.withLock { $0 = -1 }
            let error = await #expect(throws: LoaderError.self) { try await client.put(s3.location("b.bin"), body: Self.object) }
            #expect(error == .connection || error == .truncated || error == .timeout)
            #expect(try await Self.stored(s3, "b.bin") == nil)

            // a multipart upload whose parts are all cut: aborted, nothing stored, no upload left
            let large = Array(repeating: UInt8(7), count: 11 * 1024 * 1024)
            let multipartError = await #expect(throws: LoaderError.self) { try await client.put(s3.location("c.bin"), body: large) }
            #expect(multipartError != nil)
            #expect(try await Self.stored(s3, "c.bin") == nil)
            let uploads = try await s3.client.send(.GET, S3Location(bucket: s3.bucket, key: ""), query: [("uploads", "")], deadline: .now() + .seconds(10))
            let listing = String(buffer: try await uploads.body.collect(upTo: 1 << 20))
            #expect(!listing.contains("<Upload>"))
            #expect(try await s3.client.listObjects(bucket: s3.bucket, prefix: "").map(\.key) == ["a.bin"])
            await proxy.stop()
        }
    }

    @Test func aStoreGoneMidRunEndsEachLoadInAGoodAnswerOrATypedError() async throws {
        try await withS3TestStore { s3 in
            for i in 0..<12 { try await s3.client.put(s3.location("o\(i)"), body: Self.object) }
            let proxy = try await FaultProxy.start(upstreamPort: try Self.upstreamPort(s3)) { _, _ in .forward }
            let harness = try AssetLoaderHarness { $0.s3 = Self.through(proxy, s3) }
            var outcomes: [String] = []
            for i in 0..<12 {
                if i == 6 { await proxy.stop() }  // the store goes away half-way
                let url = s3.location("o\(i)").url
                do {
                    let response = try await harness.loader.load(AssetRequest(url: URL(string: url)!, kind: .raw))
                    #expect(Array(try await harness.loader.data(for: response)) == Self.object)
                    outcomes.append("ok")
                } catch let error as LoaderError {
                    #expect(error == .connection)
                    #expect(try Self.cached(harness, url) == nil)
                    outcomes.append(error.shortDescription)
                }
            }
            #expect(outcomes == Array(repeating: "ok", count: 6) + Array(repeating: "connection", count: 6))
            #expect(harness.temporaryFiles.isEmpty)
            try await harness.close()
        }
    }
}
