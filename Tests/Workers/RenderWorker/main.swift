// A worker for the tests of WorkerPool: the real Lottie and video frame jobs, and jobs that misbehave on
// purpose (crash, hang, allocate without bound, answer garbage), which the production worker
// (`assetpipe worker`) does not have.
//
// `RenderWorker crash-once FILE` or `hang-once FILE`: the Lottie frame job crashes or hangs when it
// can remove FILE (one job of all the pool's workers does), and renders otherwise, so that a
// service's tests see a crashed render and then the next one answered. `crash-image-once FILE` and
// `hang-image-once FILE` do the same to the image transform and decode jobs.
import AssetImaging
import AssetLottieRender
import AssetVideoFrames
import AssetWorkers

#if canImport(Glibc)
import Glibc
#endif

struct Refused: WorkerReportableError {
    var workerFailure: WorkerFailure { WorkerFailure(code: "refused", message: "asked to refuse") }
}

func allocate(_ payload: [UInt8]) -> [UInt8] {
    // grows until the address-space limit stops it
    var blocks: [UnsafeMutableRawPointer] = []
    while blocks.count <= 1_000 {
        guard let block = malloc(64 << 20) else { return Array("limited after \(blocks.count) blocks".utf8) }
        memset(block, 1, 64 << 20)
        blocks.append(block)
    }
    return Array("no limit".utf8)
}

func hang(_ payload: [UInt8]) -> [UInt8] {
    while true { sleep(1000) }
}

func garbage(_ payload: [UInt8]) -> [UInt8] {
    _ = "not a reply".withCString { write(1, $0, 11) }
    exit(0)
}

/// Reads the payload's u32 count of source bytes at its u64 offset from the parent and answers them
/// (or "nil" when the parent's read failed).
func read(_ payload: [UInt8]) -> [UInt8] {
    var reader = WorkerPayloadReader(payload)
    guard let offset = reader.word(), let count = reader.word(width: 4) else { return [] }
    return WorkerLoop.readFromParent(offset: Int64(bitPattern: offset), count: Int(count)) ?? Array("nil".utf8)
}

/// `RenderWorker crash-video`: a video frame job that reads the container's first bytes from the
/// parent, then crashes (as a decoder could).
func crashingVideo(_ payload: [UInt8]) -> [UInt8] {
    _ = WorkerLoop.readFromParent(offset: 0, count: 4_096)
    abort()
}

var videoJob: WorkerLoop.Job = { try VideoFrameJob.handle($0) }
var previewJob: WorkerLoop.Job = { try VideoPreviewJob.handle($0) }
if CommandLine.arguments.dropFirst().first == "crash-video" { (videoJob, previewJob) = (crashingVideo, crashingVideo) }

/// The Lottie frame job, misbehaving once as the arguments say.
func frameJob() -> WorkerLoop.Job {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let mode = arguments.first, !mode.hasSuffix("-image-once"), let marker = arguments.last else {
        return LottieFrameJob.handle
    }
    return { payload in
        if unlink(marker) == 0 {
            if mode == "crash-once" { abort() }
            if mode == "hang-once" { return hang(payload) }
        }
        return try LottieFrameJob.handle(payload)
    }
}

/// An image job (transform or decode), misbehaving once as the arguments say.
func imageJob(_ handle: @escaping WorkerLoop.Job) -> WorkerLoop.Job {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let mode = arguments.first, mode.hasSuffix("-image-once"), let marker = arguments.last else {
        return handle
    }
    return { payload in
        if unlink(marker) == 0 {
            if mode == "crash-image-once" { abort() }
            if mode == "hang-image-once" { return hang(payload) }
        }
        return try handle(payload)
    }
}

let jobs: [String: WorkerLoop.Job] = [
    ImageTransformJob.name: imageJob(ImageTransformJob.handle),
    ImageDecodeJob.name: imageJob(ImageDecodeJob.handle),
    LottieFrameJob.name: frameJob(),
    VideoFrameJob.name: videoJob,
    VideoStoryboardJob.name: VideoStoryboardJob.handle,
    VideoPreviewJob.name: previewJob,
    "read": read,
    "echo": { payload in payload },
    "pid": { _ in Array(String(getpid()).utf8) },
    "refuse": { _ in throw Refused() },
    "crash": { _ in abort() },
    "hang": hang,
    "allocate": allocate,
    "garbage": garbage,
]
WorkerLoop.serve(jobs)
