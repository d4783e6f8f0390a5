import AssetCodecs
import AssetImaging
@testable import AssetServer
import AssetTestSupport
import AssetWorkers
import Foundation
import Testing

/// `/v1/image` with the decoders of HEIF, AVIF, TIFF, SVG and JPEG XL in worker processes
/// (`ImageUtil.Configuration.decodeWorkers`, what `assetpipe serve` sets): the same bytes as in
/// process, the same typed errors, and a decoder that crashes or hangs is a 500 `render_failed` after
/// which the server answers the next request.
@Suite("GET /v1/image with the large decoders in worker processes")
struct IsolatedDecoderTests {
    @Test(arguments: FormatSourcesTests.sources)
    func aVariantMadeInAWorkerIsTheVariantMadeInProcess(_ source: FormatSourcesTests.Source) async throws {
        let pool = WorkerPool(configuration: .init(executable: builtProduct("RenderWorker"), count: 1))
        defer { pool.shutdown() }
        try await ServerHarness.with({ configuration, _ in configuration.images.util.decodeWorkers = pool }) { harness in
            try FormatSourcesTests.serve(harness, source.fixture, at: "/source")
            let answer = try await harness.send(harness.endpoint("image", originPath: "/source", "&w=48&format=png"))
            #expect(answer.status == 200, "\(answer.text)")
            let expected = try ImageProcessor().process(
                try ServerHarness.fixture(source.fixture), transform: try ImageTransform(parsing: "w=48,format=png"))
            #expect(answer.body == expected.bytes)
            let isolated = ImageTransformJob.isolatedFormats.contains(source.format)
            #expect(pool.statistics.done == (isolated ? 1 : 0), "\(source.format) in a worker: \(isolated)")
            // answered from memory the second time: no second job
            let again = try await harness.send(harness.endpoint("image", originPath: "/source", "&w=48&format=png"))
            #expect(again.header("X-Assetpipe-Cache") == "memory")
            #expect(pool.statistics.done == (isolated ? 1 : 0))
        }
    }

    @Test func aCorruptSourceFailsInTheWorkerWithTheErrorItHasInProcess() async throws {
        let pool = WorkerPool(configuration: .init(executable: builtProduct("RenderWorker"), count: 1))
        defer { pool.shutdown() }
        let whole = try ServerHarness.fixture("heif/libheif/examples/example.heic")
        let truncated = whole.prefix(whole.count / 2)
        var inProcess: CodecError?
        do {
            _ = try ImageProcessor().process(Data(truncated), transform: ImageTransform(width: 48))
        } catch let error as CodecError {
            inProcess = error
        }
        let expected = try #require(inProcess)
        try await ServerHarness.with({ configuration, _ in configuration.images.util.decodeWorkers = pool }) { harness in
            harness.origin.setRoute("/cut.heic", .resource(TestResource(content: .bytes(Array(truncated)), headers: freshForAnHour)))
            let answer = try await harness.send(harness.endpoint("image", originPath: "/cut.heic", "&w=48"))
            #expect(answer.status == 422, "\(answer.text)")
            #expect(answer.errorCode == "undecodable")
            #expect(answer.text.contains("\"\(expected.shortDescription)\""), "\(answer.text)")
            #expect(pool.statistics.failed == 1 && pool.statistics.crashed == 0)
        }
    }

    @Test(arguments: [("crash-image-once", "crashed"), ("hang-image-once", "timedOut")])
    func aDecoderThatCrashesOrHangsIsRenderFailedAndTheNextRequestIsAnswered(_ mode: String, _ outcome: String) async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-\(mode)-\(UUID().uuidString)")
        try Data().write(to: marker)
        defer { try? FileManager.default.removeItem(at: marker) }
        let pool = WorkerPool(configuration: .init(
            executable: builtProduct("RenderWorker"), arguments: [mode, marker.path], count: 1, timeout: .seconds(3)))
        defer { pool.shutdown() }
        try await ServerHarness.with({ configuration, _ in configuration.images.util.decodeWorkers = pool }) { harness in
            try FormatSourcesTests.serve(harness, "heif/libheif/examples/example.heic", at: "/a.heic")
            let target = harness.endpoint("image", originPath: "/a.heic", "&w=64&format=jpeg")
            let failed = try await harness.send(target)
            #expect(failed.status == 500, "\(failed.text)")
            #expect(failed.errorCode == "render_failed")
            #expect(outcome == "crashed" ? pool.statistics.crashed == 1 : pool.statistics.timedOut == 1)
            // nothing of the failure was kept: the same variant is made by a new worker
            let next = try await harness.send(target)
            #expect(next.status == 200, "\(next.text)")
            #expect(try ImageDecoder().header(of: next.body).width == 64)
            #expect(pool.statistics.started == 2)
            #expect(try await harness.send("/healthz").status == 200)
        }
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the worker never misbehaved")
    }
}
