import ArgumentParser
import AssetLottie
import AssetLottieRender
import AssetVideoFrames
import AssetWorkers
import Foundation

/// Renders frames in worker processes many times over (Lottie frames with rlottie, video frames
/// with FFmpeg reading their bytes back from this process, and every `--hostile` file, which must
/// end in a typed error or a crashed worker) and prints, every `--every` renders, the descriptors
/// and resident memory of this process and of its workers: a worker that leaks shows as a line that
/// grows. `scripts/render-soak` runs it.
struct RenderSoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-soak",
        abstract: "Render frames in worker processes N times; print descriptors and memory as they go (see scripts/render-soak)."
    )

    @Option(help: "The worker program (assetpipe), started with the argument `worker`.")
    var worker: String

    @Option(help: "Lottie files to render a frame of (JSON).")
    var lottie: [String] = []

    @Option(help: "Video files to decode a frame of (MP4, WebM).")
    var video: [String] = []

    @Option(help: "Files that must end in a typed error or a crashed worker (malformed videos, crash inputs).")
    var hostile: [String] = []

    @Option(help: "Renders in all.")
    var renders = 10_000

    @Option(help: "Print a line every this many renders.")
    var every = 1_000

    @Option(help: "Workers in the pool.")
    var workers = 2

    func run() async throws {
        let pool = WorkerPool(configuration: .init(
            executable: worker, arguments: ["worker"], count: workers, timeout: .seconds(10), memoryLimit: 1 << 30))
        defer { pool.shutdown() }
        var jobs: [@Sendable () async -> String] = []
        for path in lottie {
            let animation = try LottieDocumentReader().read(contentsOfFile: path).defaultEntry!.animation
            let renderer = LottieFrameRenderer()
            let input = try renderer.prepare(animation)
            let count = max(1, input.frameCount)
            for frame in [0, count / 2] {
                let payload = LottieFrameJob.request(input, at: .frame(frame), size: LottieFrameSize(width: 128))
                jobs.append { await Self.outcome { _ = try LottieFrameJob.bitmap(fromReply: try await pool.run(LottieFrameJob.name, payload: payload)) } }
            }
        }
        for path in video + hostile {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let reads: WorkerPool.Reads = { offset, count in
                guard offset >= 0, offset <= Int64(bytes.count) else { return nil }
                return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
            }
            for time in [VideoFrameTime.first, .progress(0.5)] {
                let payload = VideoFrameJob.request(sourceSize: Int64(bytes.count), at: time, size: VideoFrameSize(width: 128))
                jobs.append { await Self.outcome { _ = try VideoFrameJob.frame(fromReply: try await pool.run(VideoFrameJob.name, payload: payload, reads: reads)) } }
            }
        }
        guard !jobs.isEmpty else { throw ValidationError("give --lottie or --video files") }
        print("renders\tdone\tfailed\tcrashed\ttimed_out\tworkers_started\tparent_fds\tparent_rss_kib\tworker_fds\tworker_rss_kib")
        var outcomes: [String: Int] = [:]
        for index in 0..<renders {
            outcomes[await jobs[index % jobs.count](), default: 0] += 1
            if (index + 1) % every == 0 || index + 1 == renders {
                let statistics = pool.statistics
                let children = Self.children()
                let childFDs = children.map { Self.descriptors($0) }.reduce(0, +)
                let childRSS = children.map { Self.residentKiB($0) }.reduce(0, +)
                print("\(index + 1)\t\(statistics.done)\t\(statistics.failed)\t\(statistics.crashed)\t\(statistics.timedOut)\t\(statistics.started)\t\(Self.descriptors(getpid()))\t\(Self.residentKiB(getpid()))\t\(childFDs)\t\(childRSS)")
            }
        }
        print("outcomes\t" + outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }

    /// `ok`, or the error's code.
    static func outcome(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "ok"
        } catch let error as WorkerError {
            return error.failure?.code ?? "\(error.code)"
        } catch let error as VideoFrameError {
            return error.code.rawValue
        } catch let error as LottieRenderError {
            return error.shortDescription
        } catch {
            return "other"
        }
    }

    /// The processes whose parent is this one (from each `/proc/PID/stat`: workers are started
    /// from any thread, so no one thread's `children` file lists them all).
    static func children() -> [Int32] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }

    static func descriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
