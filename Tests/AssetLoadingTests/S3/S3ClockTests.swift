@testable import AssetLoading
import AssetStorage
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// A clock that is `offset` seconds off the system's.
private struct ShiftedClock: CacheClock {
    let offset: Double
    var now: Date { Date().addingTimeInterval(self.offset) }
}

/// Requests signed at the wrong time, against radosgw (which, as AWS, refuses an `X-Amz-Date`
/// more than 15 minutes from its clock with `403 RequestTimeTooSkewed`), and a wrong secret.
@Suite(.enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3ClockTests {
    /// A client of the store `s3` whose clock is `offset` seconds off (a configuration of its own:
    /// copies of one share the offset they learn).
    static func skewedClient(_ s3: S3TestStore, offset: Double, corrects: Bool) -> S3Client {
        let base = s3.configuration
        let configuration = S3Client.Configuration(
            endpoint: base.endpoint, region: base.region, credentials: base.credentials, retry: base.retry,
            clock: ShiftedClock(offset: offset), correctsClockSkew: corrects)
        return S3Client(configuration: configuration, httpClient: s3.httpClient)
    }

    @Test(arguments: [1200.0, -1200.0])
    func aClockTwentyMinutesOffIsATypedRequestTimeTooSkewed(offset: Double) async throws {
        try await withS3TestStore { s3 in
            try await s3.client.put(s3.location("k"), body: Array("x".utf8))
            let client = Self.skewedClient(s3, offset: offset, corrects: false)
            let error = await #expect(throws: LoaderError.self) {
                _ = try await client.send(.GET, s3.location("k"), deadline: .now() + .seconds(10))
            }
            #expect(error == .http(403))
            #expect(error?.s3Code == "RequestTimeTooSkewed")
            #expect(error?.message.contains("RequestTimeTooSkewed") == true)
            #expect(error?.message.contains("Signature=") == false)
            // the loader's s3:// loads say the same, and do not retry a 403
            let harness = try AssetLoaderHarness { $0.s3 = client.configuration }
            let loadError = await #expect(throws: LoaderError.self) {
                try await harness.loader.load(AssetRequest(url: URL(string: s3.location("k").url)!, kind: .raw))
            }
            try await harness.close()
            #expect(loadError == .http(403))
            #expect(loadError?.s3Code == "RequestTimeTooSkewed")
            #expect(client.configuration.skew.offset == 0)
        }
    }

    @Test(arguments: [1200.0, -1200.0])
    func aClockTwentyMinutesOffIsCorrectedByTheStoresDate(offset: Double) async throws {
        try await withS3TestStore { s3 in
            let body = Array((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            try await s3.client.put(s3.location("k"), body: body)
            let client = Self.skewedClient(s3, offset: offset, corrects: true)
            let sent = ContinuousClock.now
            let response = try await client.send(.GET, s3.location("k"), deadline: .now() + .seconds(10))
            let took = Double((ContinuousClock.now - sent).components.seconds)
            #expect(Array(try await response.body.collect(upTo: 1 << 20).readableBytesView) == body)
            // the offset learned is the store's: -offset, give or take the `Date` field's second and
            // the time the refusal took to reach us (seconds on a loaded machine, never minutes)
            #expect(abs(client.configuration.skew.offset + offset) < 2 + took)
            // and kept: a PUT (its body signed) and a HEAD (a bodiless refusal otherwise) go through
            try await client.put(s3.location("k2"), body: body, contentType: "application/octet-stream")
            #expect(try await client.head(s3.location("k2")).size == 3000)
            // a HEAD first, with nothing learned yet, is corrected as well
            let fresh = Self.skewedClient(s3, offset: offset, corrects: true)
            #expect(try await fresh.head(s3.location("k")).size == 3000)
            // so are the loader's s3:// loads
            let harness = try AssetLoaderHarness { $0.s3 = Self.skewedClient(s3, offset: offset, corrects: true).configuration }
            let loaded = try await harness.loader.load(AssetRequest(url: URL(string: s3.location("k").url)!, kind: .raw))
            #expect(Array(try await harness.loader.data(for: loaded)) == body)
            try await harness.close()
        }
    }

    @Test func aWrongSecretIsATypedSignatureDoesNotMatchAndNotTakenForAClock() async throws {
        // `scripts/radosgw refusals` (run by scripts/test) fails on any request radosgw refuses for
        // its signature unless its path says it is refused on purpose
        let key = "refused-on-purpose/k"
        let bucket = try await withS3TestStore { s3 in
            try await s3.client.put(s3.location(key), body: Array("x".utf8))
            return s3.bucket
        }
        try await withS3TestStore(secret: "not-the-secret") { s3 in
            let location = S3Location(bucket: bucket, key: key)
            let error = await #expect(throws: LoaderError.self) {
                _ = try await s3.client.send(.GET, location, deadline: .now() + .seconds(10))
            }
            #expect(error == .http(403))
            #expect(error?.s3Code == "SignatureDoesNotMatch")
            let headError = await #expect(throws: LoaderError.self) { try await s3.client.head(location) }
            #expect(headError?.s3Code == "AccessDenied")
            let putError = await #expect(throws: LoaderError.self) { try await s3.client.put(location, body: [1]) }
            #expect(putError?.s3Code == "SignatureDoesNotMatch")
            #expect(s3.client.configuration.skew.offset == 0)
        }
    }

    @Test func whichRefusalsAreTheClocks() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let date = { (offset: Double) in HTTPDate.format(now.addingTimeInterval(offset)) }
        // named by S3: learned whatever the offset
        #expect(S3Client.clockOffset(status: 403, code: "RequestTimeTooSkewed", dateField: date(1200), now: now, learned: 0) == 1200)
        #expect(S3Client.clockOffset(status: 400, code: "RequestExpired", dateField: date(-90), now: now, learned: 0) == -90)
        // a signature error or a bodiless 403 only past 4 minutes
        #expect(S3Client.clockOffset(status: 403, code: "SignatureDoesNotMatch", dateField: date(120), now: now, learned: 0) == nil)
        #expect(S3Client.clockOffset(status: 403, code: "SignatureDoesNotMatch", dateField: date(600), now: now, learned: 0) == 600)
        #expect(S3Client.clockOffset(status: 403, code: "AccessDenied", dateField: date(-600), now: now, learned: 0) == -600)
        // a token's refusal never, whatever the date: the token expires by the store's clock
        #expect(S3Client.clockOffset(status: 403, code: "ExpiredToken", dateField: date(600), now: now, learned: 0) == nil)
        #expect(S3Client.clockOffset(status: 403, code: "InvalidToken", dateField: date(-600), now: now, learned: 0) == nil)
        // already learned, no date, another status, another 400: nothing
        #expect(S3Client.clockOffset(status: 403, code: "RequestTimeTooSkewed", dateField: date(1200), now: now, learned: 1200) == nil)
        #expect(S3Client.clockOffset(status: 403, code: "RequestTimeTooSkewed", dateField: nil, now: now, learned: 0) == nil)
        #expect(S3Client.clockOffset(status: 404, code: "NoSuchKey", dateField: date(1200), now: now, learned: 0) == nil)
        #expect(S3Client.clockOffset(status: 400, code: "InvalidArgument", dateField: date(1200), now: now, learned: 0) == nil)
    }
}
