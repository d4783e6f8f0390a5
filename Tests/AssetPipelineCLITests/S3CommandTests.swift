import AssetLoading
import AssetTestSupport
import AsyncHTTPClient
import Foundation
import Testing

/// `assetpipe get` and `range` of `s3://` URLs against the test radosgw (`scripts/radosgw`), the
/// credentials from the standard `AWS_*` variables.
@Suite("assetpipe and s3://", .enabled(if: !TestObjectStore.isSkipped, "ASSETPIPE_TEST_S3=skip"))
struct S3CommandTests {
    /// A bucket holding `key` with `body`, and the environment the CLI reads the store from.
    static func prepare(key: String, body: [UInt8]) async throws -> (location: S3Location, environment: [String: String]) {
        let store = try TestObjectStore.current()
        let configuration = S3Client.Configuration(
            endpoint: store.endpoint, region: store.region,
            credentials: S3Credentials(accessKeyID: store.accessKey, secretAccessKey: store.secretKey))
        let client = S3Client(configuration: configuration, httpClient: HTTPClient.shared)
        let location = S3Location(bucket: TestObjectStore.uniqueBucket("cli"), key: key)
        try await client.createBucket(location.bucket)
        try await client.put(location, body: body, contentType: "application/octet-stream")
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ENDPOINT_URL"] = store.endpoint
        environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        environment["AWS_REGION"] = store.region
        environment["AWS_PROFILE"] = nil
        return (location, environment)
    }

    @Test func getAndRangeAnS3Object() async throws {
        let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let (location, environment) = try await Self.prepare(key: "photos/a b+%é.bin", body: body)
        let dir = try CLIFixtures.temporaryDirectory("s3")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.bin").path

        let get = try await assetpipeAsync(
            ["get", location.url, "--cache-dir", dir.path, "--json", "-o", out], environment: environment)
        #expect(get.status == 0, "\(get.stderr)")
        let json = try jsonObject(get.stdout)
        #expect(json["outcome"] as? String == "downloaded")
        #expect(json["bytes"] as? Int == 40_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(body))

        let range = try await assetpipeAsync(
            ["range", location.url, "--start", "1000", "--length", "500", "--cache-dir", dir.path, "-o", out + ".part"],
            environment: environment)
        #expect(range.status == 0, "\(range.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + ".part")) == Data(body[1000..<1500]))
    }

    @Test func prefetchAListOfS3Objects() async throws {
        let (location, environment) = try await Self.prepare(key: "list/one.bin", body: Array(repeating: 7, count: 3000))
        let dir = try CLIFixtures.temporaryDirectory("s3")
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("list.txt")
        let missing = S3Location(bucket: location.bucket, key: "list/missing.bin")
        try Data("\(location.url)\traw\n\(missing.url)\traw\ns3://Not_A_Bucket/x\n".utf8).write(to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let run = try await assetpipeAsync(
            ["prefetch", list.path, "--cache-dir", dir.appendingPathComponent("cache").path, "--report", reportFile.path, "--quiet"],
            environment: environment)
        #expect(run.status == 1, "\(run.stderr)")  // one item failed
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["downloaded"] as? Int == 1)
        #expect(summary["failed"] as? Int == 2)  // the missing key and the bad bucket name
        let items = try #require(object["items"] as? [[String: Any]])
        let codes = items.compactMap { ($0["error"] as? [String: Any])?["code"] as? String }.sorted()
        #expect(codes == ["http_404", "malformed"], "\(items)")
    }

    /// `convert s3://... --derived-store`: a second run with an empty cache reads the variant the
    /// first one wrote, and transforms nothing.
    @Test func convertSharesVariantsThroughTheDerivedStore() async throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: CLIFixtures.path("imaging/orientation-6.jpg"))))
        let (location, environment) = try await Self.prepare(key: "photos/p 1.jpg", body: jpeg)
        let store = "s3://\(location.bucket)/derived"
        var origins: [String] = []
        var outputs: [Data] = []
        for run in 0..<2 {
            let dir = try CLIFixtures.temporaryDirectory("s3")  // an empty cache each time
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("t\(run).webp").path
            let result = try await assetpipeAsync(
                ["convert", location.url, "--cache-dir", dir.path, "--width", "64", "--format", "webp", "-o", out, "--json", "--derived-store", store],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            origins.append(try jsonObject(result.stdout)["origin"] as? String ?? "")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(origins == ["transformed", "derivedStore"])
        #expect(outputs[0] == outputs[1])

        // the store's lifetime: a day keeps the variant, 0 seconds removes it and the source's record
        let dir = try CLIFixtures.temporaryDirectory("s3")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (age, removed) in [("86400", 0), ("0", 2)] {
            let prune = try await assetpipeAsync(
                ["cache", "prune", "--cache-dir", dir.path, "--max-age", age, "--derived-store", store, "--json"], environment: environment)
            #expect(prune.status == 0, "\(prune.stderr)")
            let shared = try #require(try jsonObject(prune.stdout)["derivedStore"] as? [String: Any])
            #expect(shared["removed"] as? Int == removed)
        }
    }

    @Test func aWrongSecretFailsTyped() async throws {
        // the path `scripts/radosgw refusals` lets through
        let (location, good) = try await Self.prepare(key: "refused-on-purpose/k.bin", body: [1, 2, 3])
        var environment = good
        environment["AWS_SECRET_ACCESS_KEY"] = "wrong-secret"
        let dir = try CLIFixtures.temporaryDirectory("s3")
        defer { try? FileManager.default.removeItem(at: dir) }
        let get = try await assetpipeAsync(["get", location.url, "--cache-dir", dir.path, "--json"], environment: environment)
        #expect(get.status == 1)
        let error = try #require(try jsonObject(get.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "http_403")
        #expect((error["message"] as? String)?.contains("SignatureDoesNotMatch") == true)
        #expect(!get.stdout.contains("wrong-secret") && !get.stderr.contains("wrong-secret"))
    }
}
