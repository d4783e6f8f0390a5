import ArgumentParser
import AssetImaging
import AssetLottieRender
import AssetVideoFrames
import AssetWorkers

/// `assetpipe worker`: the render worker a `WorkerPool` starts (a `LottieUtil` with
/// `renderWorkers`, a `VideoUtil` with `frameWorkers`). It is not for people: it reads requests on standard input and writes
/// replies on standard output until its input closes.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve render jobs on standard input and output (started by a WorkerPool, not by hand).",
        discussion: """
            Jobs: \(LottieFrameJob.name) (a frame of a checked Lottie animation, rendered with rlottie); \
            \(VideoFrameJob.name) (a video frame decoded with FFmpeg, its bytes read from the pool); \
            \(VideoStoryboardJob.name) (a storyboard's tiles, read the same way); \
            \(VideoPreviewJob.name) (a video's animated preview, decoded and encoded, read the same way); \
            \(ImageTransformJob.name) and \(ImageDecodeJob.name) (a variant or a decode of a HEIF, AVIF, \
            TIFF, SVG or JPEG XL image).
            The pool sets ASSETPIPE_WORKER_MEMORY_LIMIT (bytes of address space) and kills a worker
            that runs past its timeout; a worker that crashes is replaced.
            """,
        shouldDisplay: false)

    func run() throws {
        WorkerLoop.serve([
            LottieFrameJob.name: LottieFrameJob.handle, VideoFrameJob.name: VideoFrameJob.handle,
            VideoStoryboardJob.name: VideoStoryboardJob.handle, VideoPreviewJob.name: VideoPreviewJob.handle,
            ImageTransformJob.name: ImageTransformJob.handle, ImageDecodeJob.name: ImageDecodeJob.handle,
        ])
    }
}
