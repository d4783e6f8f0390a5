import ArgumentParser
import AssetLoading
import AssetLottie
import AssetPipeline
import AssetStorage
import Foundation

/// The latency of a memoized hit: `LottieUtil.animation(for:)` and `ImageUtil.image(for:)` for an
/// animation or image already in memory, beside the synchronous look-ups and the memory cache alone.
///
/// The source bytes are put in the disk cache under an `https` URL's default key (no network), one
/// `.cacheOnly` load memoizes them, and then every timed call is a hit with default options, as a
/// caller makes it: a `URL` in, the key derived from it, the look-up, the value out. The caches
/// also hold `--filler` other entries. Each row is the median of `--rounds` rounds of
/// `--iterations` calls, in nanoseconds per call.
struct UtilsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "utils",
        abstract: "Memoized-hit latency of LottieUtil and ImageUtil (ns per call, median round)."
    )

    @Option(help: "A Lottie file to memoize.")
    var lottie: String

    @Option(help: "A PNG or JPEG file to memoize.")
    var image: String

    @Option(help: "Calls per timed round.")
    var iterations = 500_000

    @Option(help: "Timed rounds; the median is reported.")
    var rounds = 7

    @Option(help: "Other entries in each memory cache.")
    var filler = 1_000

    @Option(parsing: .upToNextOption, help: "Lottie files whose parsed model's heap bytes per source byte are measured.")
    var modelFiles: [String] = []

    @Flag(help: "Print tab-separated lines (case, ns per call) instead of a table.")
    var tsv = false

    func validate() throws {
        guard iterations > 0, rounds > 0, filler >= 0 else { throw ValidationError("--iterations and --rounds must be positive") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-bench-utils-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = try await AssetsManager.open(configuration: .init(directory: directory))
        let lottieURL = URL(string: "https://cdn.example.com/animations/\((lottie as NSString).lastPathComponent)")!
        let imageURL = URL(string: "https://cdn.example.com/images/\((image as NSString).lastPathComponent)")!
        for (url, path, kind) in [(lottieURL, lottie, AssetKind.lottie), (imageURL, image, .image)] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try await manager.writeData(
                data, forKey: AssetLoader.defaultCacheKey(for: url.absoluteString), storageType: .disk, info: .init(kind: kind))
        }
        let lottieUtil = LottieUtil(manager: manager)
        let imageUtil = ImageUtil(manager: manager)
        let animation = try await lottieUtil.animation(for: lottieURL, options: .init(strategy: .cacheOnly))
        let bitmap = try await imageUtil.image(for: imageURL, options: .init(strategy: .cacheOnly))
        for index in 0..<filler {
            manager.setObject(index, forKey: "https://cdn.example.com/filler/\(index).json", kind: .lottie, cost: 1)
            manager.setObject(index, forKey: "https://cdn.example.com/filler/\(index).png", kind: .image, cost: 1)
        }
        let lottieKey = lottieUtil.memoryKey(for: lottieURL)
        let lottieCache = manager.memoryCache(for: .lottie)

        var results: [(String, Double)] = []
        results.append(("LottieUtil.animation(for:) hit", try await measure { sink in
            sink &+= try await lottieUtil.animation(for: lottieURL).layerCount
        }))
        results.append(("LottieUtil.cachedAnimation(for:)", try await measure { sink in
            sink &+= lottieUtil.cachedAnimation(for: lottieURL)?.layerCount ?? 0
        }))
        results.append(("ImageUtil.image(for:) hit", try await measure { sink in
            sink &+= try await imageUtil.image(for: imageURL).width
        }))
        results.append(("ImageUtil.cachedImage(for:)", try await measure { sink in
            sink &+= imageUtil.cachedImage(for: imageURL)?.width ?? 0
        }))
        results.append(("MemoryCache.value(forKey:) alone (key built once)", try await measure { sink in
            sink &+= lottieCache.value(forKey: lottieKey) == nil ? 0 : 1
        }))
        try await manager.shutdown()

        var kept: [LottieDocument] = []  // every file's documents stay alive, so no file reuses another's memory
        let ratios = try modelFiles.map { ($0, try Self.heapBytesPerSourceByte(of: $0, keeping: &kept)) }
        let source = "\(animation.layerCount) layers; \(bitmap.width)x\(bitmap.height) bitmap"
        if tsv {
            for (name, nanoseconds) in results { print("\(name)\t\(String(format: "%.1f", nanoseconds))") }
            for (file, ratio) in ratios {
                print("model-bytes-per-source-byte\t\(file)\t\(String(format: "%.2f", ratio.measured))\t\(String(format: "%.2f", ratio.estimated))")
            }
        } else {
            print("Hits on \(source); median of \(rounds) rounds of \(iterations) calls.")
            print()
            print("| call | ns per call | goal < 1000 ns |")
            print("|---|---:|---|")
            for (name, nanoseconds) in results {
                print("| \(name) | \(String(format: "%.1f", nanoseconds)) | \(nanoseconds < 1000 ? "met" : "missed") |")
            }
            guard !ratios.isEmpty else { return }
            print()
            print("| Lottie file | model bytes per source byte, measured | LottieUtil.estimatedCost per source byte |")
            print("|---|---:|---:|")
            for (file, ratio) in ratios {
                print("| \((file as NSString).lastPathComponent) | \(String(format: "%.2f", ratio.measured)) | \(String(format: "%.2f", ratio.estimated)) |")
            }
        }
    }

    /// The memory a parsed document holds over the source bytes `LottieUtil.estimatedCost(of:)`
    /// counts: resident memory after reading the file `copies` times with every document kept (in
    /// `kept`, until the caller is done with all files), minus before, per copy. glibc's `mallinfo2`
    /// is not visible to Swift; with the copies kept, the parser's temporary memory is reused and
    /// the average converges on what stays.
    static func heapBytesPerSourceByte(
        of path: String, copies: Int = 20, keeping kept: inout [LottieDocument]
    ) throws -> (measured: Double, estimated: Double) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try LottieUtil.read(data)  // warm up
        let before = residentBytes()
        var documents: [LottieDocument] = []
        for _ in 0..<copies { documents.append(try LottieUtil.read(data)) }
        let after = residentBytes()
        let source = documents[0].animations.reduce(0) { $0 + $1.sourceByteCount }
        let estimated = Double(LottieUtil.estimatedCost(of: documents[0])) / Double(max(1, source))
        kept += documents
        return (Double(after - before) / Double(copies * max(1, source)), estimated)
    }

    private static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The median nanoseconds per call of `rounds` rounds of `iterations` calls (after one warm-up round).
    private func measure(_ body: (inout Int) async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        var sink = 0
        var perCall: [Double] = []
        for round in 0...rounds {
            let start = clock.now
            for _ in 0..<iterations { try await body(&sink) }
            let elapsed = clock.now - start
            let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            if round > 0 { perCall.append(nanoseconds / Double(iterations)) }
        }
        if sink == 42 { print("", terminator: "") }  // keeps the calls observable
        return perCall.sorted()[perCall.count / 2]
    }
}
