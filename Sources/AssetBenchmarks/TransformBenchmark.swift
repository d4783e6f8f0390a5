import ArgumentParser
import AssetCodecs
import AssetImaging
import AssetWorkers
import Foundation
import Synchronization

/// Transforms one image file in-process in a loop (decode with shrink-on-load, resize, encode) on
/// one or more threads, and prints one tab-separated line for scripts/bench.d/90-transform.sh.
struct TransformBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transform",
        abstract: "Resizes and encodes an image in-process in a loop; prints per-image latency, images/s and peak memory.",
        discussion: """
            Prints: file, format, out_width, out_height, runs, threads, median_ms, min_ms, max_ms, images_per_s, \
            peak_rss_kb, output_bytes (tab-separated). With --threads T, T threads each transform the file --runs \
            times; images/s is all images over the wall time; the latencies are per image.
            """)

    @Argument(help: "An image file (any format ImageDecoder reads; an animated GIF or WebP stays animated into WebP or GIF).")
    var file: String

    @Option(help: "Timed transforms per thread.")
    var runs = 20

    @Option(help: "Untimed transforms per thread before timing.")
    var warmup = 2

    @Option(help: "Threads transforming at once.")
    var threads = 1

    @Option(help: "Target width.")
    var width: Int?

    @Option(help: "Target height.")
    var height: Int?

    @Option(help: "jpeg, png, webp, avif or gif.")
    var format: String

    @Option(help: "Encoder quality 1-100.")
    var quality: Int?

    @Option(help: "Write the last output here.")
    var output: String?

    @Option(help: "The factor shrink-on-load leaves for the kernel (ImageProcessor.Configuration.shrinkOnLoadMargin).")
    var shrinkMargin: Double?

    @Flag(help: "Decode and resample on one thread (ImageProcessor.Configuration.overlapDecoding off).")
    var noOverlap = false

    @Option(help: "Transform in a worker process of this executable (`assetpipe`, started as `worker`), as the service does for HEIF, AVIF, TIFF, SVG and JPEG XL (ImageTransformJob); one thread.")
    var worker: String?

    func validate() throws {
        guard runs > 0, warmup >= 0, threads > 0 else { throw ValidationError("--runs and --threads must be positive") }
        guard worker == nil || threads == 1 else { throw ValidationError("--worker runs one thread") }
    }

    /// The loop through a worker process: the source goes to the worker with each request, the
    /// encoded output comes back (what ImageUtil's variants of the isolated formats cost).
    func runInWorker(_ executable: String, data: Data, transform: ImageTransform, configuration: ImageProcessor.Configuration) async throws
        -> ([Double], EncodedImage, Double)
    {
        let pool = WorkerPool(configuration: .init(executable: executable, arguments: ["worker"], count: 1))
        defer { pool.shutdown() }
        let source = [UInt8](data)
        var output: EncodedImage?
        for _ in 0..<max(1, warmup) {
            output = try await ImageTransformJob.run(on: pool, source: source, transform: transform, accepted: nil, configuration: configuration)
        }
        var times: [Double] = []
        let start = ContinuousClock.now
        for _ in 0..<runs {
            let begin = ContinuousClock.now
            output = try await ImageTransformJob.run(on: pool, source: source, transform: transform, accepted: nil, configuration: configuration)
            let elapsed = ContinuousClock.now - begin
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        let wall = ContinuousClock.now - start
        guard let output else { throw ValidationError("no transform finished") }
        return (times.sorted(), output, Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }

    func run() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        var pairs: [(String, String)] = [("format", format)]
        if let width { pairs.append(("w", String(width))) }
        if let height { pairs.append(("h", String(height))) }
        if let quality { pairs.append(("q", String(quality))) }
        let transform = try ImageTransform(pairs: pairs)
        var configuration = ImageProcessor.Configuration()
        if let shrinkMargin { configuration.shrinkOnLoadMargin = shrinkMargin }
        if noOverlap { configuration.overlapDecoding = .off }
        if let worker {
            let (times, encoded, seconds) = try await runInWorker(worker, data: data, transform: transform, configuration: configuration)
            if let output { try Data(encoded.bytes).write(to: URL(fileURLWithPath: output)) }
            print(line(encoded: encoded, times: times, seconds: seconds))
            return
        }
        let processor = ImageProcessor(configuration: configuration)
        let (runs, warmup, threads) = (self.runs, self.warmup, self.threads)
        let last = Mutex<EncodedImage?>(nil)
        let latencies = Mutex<[Double]>([])
        let ready = DispatchGroup(), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        let failure = Mutex<String?>(nil)
        for _ in 0..<threads {
            ready.enter()
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                do {
                    for _ in 0..<warmup { _ = try processor.process(data, transform: transform) }
                    ready.leave()
                    go.wait()
                    var mine: [Double] = []
                    var output: EncodedImage?
                    for _ in 0..<runs {
                        let start = ContinuousClock.now
                        output = try processor.process(data, transform: transform)
                        let elapsed = ContinuousClock.now - start
                        mine.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                    }
                    latencies.withLock { $0 += mine }
                    last.withLock { $0 = output }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    ready.leave()
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        ready.wait()
        let start = ContinuousClock.now
        for _ in 0..<threads { go.signal() }
        done.wait()
        let wall = ContinuousClock.now - start
        if let message = failure.withLock({ $0 }) { throw ValidationError("transform failed: \(message)") }
        let times = latencies.withLock { $0 }.sorted()
        guard let encoded = last.withLock({ $0 }), !times.isEmpty else { throw ValidationError("no transform finished") }
        if let output { try Data(encoded.bytes).write(to: URL(fileURLWithPath: output)) }
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        print(line(encoded: encoded, times: times, seconds: seconds))
    }

    /// The tab-separated line of a run (the worker's own memory is not in this process's peak).
    private func line(encoded: EncodedImage, times: [Double], seconds: Double) -> String {
        let fields = [
            (file as NSString).lastPathComponent, encoded.format.rawValue, String(encoded.width), String(encoded.height),
            String(runs), String(threads), String(format: "%.3f", times[times.count / 2]), String(format: "%.3f", times[0]),
            String(format: "%.3f", times[times.count - 1]), String(format: "%.2f", Double(runs * threads) / seconds),
            String(peakResidentKilobytes()), String(encoded.bytes.count),
        ]
        return fields.joined(separator: "\t")
    }

    private func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        }
        return 0
    }
}
