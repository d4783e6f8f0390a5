import AssetCodecs
import AssetLoading
import AssetLottie
import AssetStorage
import AssetTestSupport
import Foundation
import Synchronization
import Testing
@testable import AssetPipeline

/// The ways the pipeline loads: each network fault is run through every one of them.
enum LoaderPath: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `AssetsManager.load` (what `assetpipe get` does), then the body read back.
    case get
    /// `Prefetcher`, one item, with validation.
    case prefetch
    /// `VideoUtil` range reads through the chunk store.
    case video
    /// `ImageUtil.image(for:)`.
    case image
    /// `LottieUtil.animation(for:)`.
    case lottie

    var description: String { rawValue }
}

/// How one run of a fault through a path ended.
enum FaultOutcome: Equatable, CustomStringConvertible {
    /// It succeeded after this many requests to the origin (any number, for nil).
    case succeeded(requests: Int?)
    /// It failed with this error code (see ``FaultHarness/code(of:)``).
    case failed(String)

    var description: String {
        switch self {
        case .succeeded(let requests): return "succeeded (\(requests.map(String.init) ?? "any number of") requests)"
        case .failed(let code): return "failed: \(code)"
        }
    }

    /// Whether this outcome is what `expected` describes: the same failure, or a success after at
    /// least the requests expected (more when an attempt of a loaded machine timed out and was
    /// retried).
    func matches(_ expected: FaultOutcome) -> Bool {
        switch (self, expected) {
        case (.succeeded, .succeeded(nil)): return true
        case (.succeeded(let actual?), .succeeded(let least?)): return actual >= least
        default: return self == expected
        }
    }
}

/// A chaos origin and a manager with short timeouts, for running network faults through the
/// loader paths.
struct FaultHarness: Sendable {
    let origin: ChaosOrigin
    let manager: AssetsManager
    let directory: URL
    let timing: NetworkFault.Timing

    static let chunkSize = 16 << 10
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    /// 96 KiB that start like an MP4 (six chunks).
    static let clip: [UInt8] = {
        var bytes = (0..<(96 << 10)).map { UInt8(truncatingIfNeeded: ($0 &* 151) ^ ($0 >> 8)) }
        bytes.replaceSubrange(0..<8, with: [0, 0, 0, 0x18] + Array("ftyp".utf8))
        return bytes
    }()
    static let png: [UInt8] = (try? [UInt8](Data(contentsOf: fixtures.appendingPathComponent("png/generated/gray-16-every-value.png")))) ?? []
    static let lottie: [UInt8] = (try? [UInt8](Data(contentsOf: fixtures.appendingPathComponent("lottie/lottie-ios/Nonanimating/FirstText.json")))) ?? []

    /// The timeouts: a trickle of one byte a second passes the read timeout but not the total one.
    /// Room for a loaded machine (the whole suite runs in parallel on two cores): a load that
    /// should succeed must not time out.
    struct Limits: Sendable {
        var connect: Duration = .seconds(10)
        var read: Duration = .seconds(15)
        var total: Duration = .seconds(25)
    }

    static func start(timing: NetworkFault.Timing = .init(), limits: Limits = Limits()) async throws -> FaultHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = AssetsManager.Configuration(directory: directory)
        configuration.chunks.chunkSize = chunkSize
        configuration.loader.connectTimeout = limits.connect
        configuration.loader.readTimeout = limits.read
        configuration.loader.totalTimeout = limits.total
        configuration.loader.retry = AssetLoader.RetryPolicy(
            maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20), maxRetryAfter: .milliseconds(100))
        let manager = try await AssetsManager.open(configuration: configuration)
        let origin = try await ChaosOrigin.start()
        return FaultHarness(origin: origin, manager: manager, directory: directory, timing: timing)
    }

    /// Shuts the manager down (its connections close), waits for the origin's connections to end,
    /// and stops it. Returns the connections still open when the wait gave up (0 when none leaked).
    func stop() async throws -> Int {
        try await manager.shutdown()
        let idle = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await origin.waitUntilIdle(); return true }
            group.addTask { try? await Task.sleep(for: .seconds(20)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        let left = idle ? 0 : origin.openConnections
        await origin.stop()
        try? FileManager.default.removeItem(at: directory)
        return left
    }

    /// The content a path loads, its content type and the file name its URL ends with.
    static func content(for path: LoaderPath) -> (bytes: [UInt8], type: String, name: String) {
        switch path {
        case .get, .prefetch, .video: return (clip, "video/mp4", "clip.mp4")
        case .image: return (png, "image/png", "image.png")
        case .lottie: return (lottie, "application/json", "anim.json")
        }
    }

    /// The bytes an origin sends for `content` through `fault` (the bomb replaces it).
    static func served(_ fault: NetworkFault, _ content: [UInt8]) -> [UInt8] {
        fault == .gzipBomb ? GzipBomb.oneGigabyte : content
    }

    /// The origin path of `fault` through `path`; `tag` keeps the URLs of repeated runs apart.
    static func urlPath(_ fault: NetworkFault, _ path: LoaderPath, tag: String) -> String {
        "/\(fault)/\(path)\(tag)/\(content(for: path).name)"
    }

    /// Installs `fault` at a fresh path for `path` and runs the load once; `tag` keeps the URLs of
    /// repeated runs apart.
    func run(_ fault: NetworkFault, through path: LoaderPath, tag: String = "") async throws -> (outcome: FaultOutcome, url: String) {
        let (content, type, _) = Self.content(for: path)
        let urlPath = Self.urlPath(fault, path, tag: tag)
        fault.install(on: origin, path: urlPath, content: content, contentType: type, timing: timing)
        let url = origin.url(urlPath)
        let before = origin.requestCount(path: urlPath)
        do {
            try await load(url, through: path, expecting: Self.served(fault, content))
            return (.succeeded(requests: origin.requestCount(path: urlPath) - before), url)
        } catch {
            return (.failed(Self.code(of: error)), url)
        }
    }

    private func load(_ url: String, through path: LoaderPath, expecting served: [UInt8]) async throws {
        switch path {
        case .get:
            let response = try await manager.load(AssetRequest(url: URL(string: url)!, kind: .video))
            let data = try await manager.loader.data(for: response)
            #expect(data == Data(served), "get \(url): the body differs from what the origin served")
        case .prefetch:
            let list = directory.appendingPathComponent("list-\(UUID().uuidString).txt")
            try Data((url + "\n").utf8).write(to: list)
            defer { try? FileManager.default.removeItem(at: list) }
            let results = Mutex<[PrefetchResult]>([])
            _ = await Prefetcher(manager: manager, configuration: .init(validate: true)).run(try PrefetchListFeed.open(path: list.path)) { result in
                results.withLock { $0.append(result) }
            }
            let result = try #require(results.withLock { $0.first })
            if let failure = result.failure { throw failure }
        case .video:
            let video = VideoUtil(manager: manager, configuration: .init(maxChunksPerRequest: 2))
            let data = try await video.data(for: URL(string: url)!, range: 0..<Int64(served.count))
            #expect(data == Data(served), "video \(url): the bytes differ from what the origin served")
        case .image:
            let bitmap = try await ImageUtil(manager: manager).image(for: URL(string: url)!, options: .init(keepInMemory: false))
            #expect(bitmap.width > 0)
        case .lottie:
            _ = try await LottieUtil(manager: manager).animation(for: URL(string: url)!, options: .init(keepInMemory: false))
        }
    }

    /// A short code for an error of any layer: the loader's `shortDescription`, `video.CODE`,
    /// `lottie.CODE`, `codec.CODE`, or a prefetch failure's code.
    static func code(of error: any Error) -> String {
        switch error {
        case let error as LoaderError: return error.shortDescription
        case let error as VideoError: return "video.\(error.code)"
        case let error as CodecError: return "codec.\(error.shortDescription)"
        case let error as LottieError: return "lottie.\(error.shortDescription)"
        case let failure as PrefetchResult.Failure: return "prefetch.\(failure.code)"
        default: return "unexpected \(type(of: error)): \(error)"
        }
    }

    /// What the disk cache and the chunk store hold of `url` once the load ended: nothing
    /// partial, and only whole, consistent copies of what the origin served.
    func expectNothingPartial(_ url: String, fault: NetworkFault, content: [UInt8], kept: Bool) async throws {
        let key = AssetLoader.defaultCacheKey(for: url)
        let disk = manager.diskCache
        let temporaries = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)) ?? []
        #expect(temporaries.isEmpty, "temporary files left: \(temporaries)")
        if let data = try disk.data(forKey: key) {
            #expect(kept, "\(url): a failed load left an entry")
            #expect(data == Data(Self.served(fault, content)), "\(url): the entry is not what the origin served")
        }
        let store = manager.chunkStore
        let verify = try store.verify()
        #expect(verify.corrupt == 0, "\(verify.problems)")
        guard let record = try store.record(forKey: key) else { return }
        var bytes = Self.served(fault, content)
        if fault == .eTagChangesBetweenChunks, let tag = record.info.eTag, let version = Int(tag.dropFirst(2).dropLast()) {
            bytes = NetworkFault.version(version, of: content)
        }
        for (index, _) in record.chunks {
            let chunk = try #require(try store.readChunk(forKey: key, generation: record.generation, index: index))
            let start = index * record.chunkSize
            #expect(chunk == Data(bytes[start..<(start + chunk.count)]), "\(url): chunk \(index) is not of version \(record.info.eTag ?? "-")")
        }
    }
}
