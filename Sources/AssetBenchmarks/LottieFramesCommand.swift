import ArgumentParser
import AssetImaging
import AssetLottie
import AssetLottieRender
import AssetPipeline
import Foundation

/// Renders one frame of each Lottie file given (plain JSON, dotLottie or `.tgs`, sniffed) through
/// our reader and `LottieFrameRenderer`, as `LottieUtil.frame` does; prints one tab-separated line
/// per file: path, `rendered` or the error's code, then what was rendered (size, frame count,
/// pixels not fully transparent, images left out, milliseconds) or the error's message. `scripts/lottie-frames-check` runs it
/// once per file, so that a file that crashes rlottie names itself.
struct LottieFramesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lottie-frames",
        abstract: "Render one frame of Lottie files with rlottie; print a line per file (see scripts/lottie-frames-check)."
    )

    @Argument(help: "Lottie files (JSON, .lottie, .tgs).")
    var files: [String]

    @Option(help: "The frame: a number from the in point (30), a position (50%) or a time (1.5s).")
    var frame = "0"

    @Option(help: "The width of the frame (the height follows); the animation's own size when not given.")
    var width: Int?

    @Option(help: ArgumentHelp(
        "Render this many frames spread over the animation (after one prepare, as LottieUtil renders a model it holds) and print frames per second instead.",
        valueName: "n"))
    var repeats: Int?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
        guard spec != nil else { throw ValidationError("--frame takes a frame number (30), a position (50%) or a time (1.5s)") }
        if let repeats, repeats < 1 { throw ValidationError("--repeats must be positive") }
    }

    private var spec: FrameSpec? { FrameSpec(frame) }

    func run() async throws {
        let renderer = LottieFrameRenderer()
        let reader = LottieDocumentReader()
        for file in files {
            let line: String
            do {
                let document = try reader.read(contentsOfFile: file)
                guard let animation = document.defaultEntry?.animation else { throw LottieError.animationNotFound }
                if let repeats {
                    let input = try renderer.prepare(animation)
                    let size = LottieFrameSize(width: width)
                    let start = DispatchTime.now().uptimeNanoseconds
                    for index in 0..<repeats {
                        _ = try renderer.render(input, at: .frame(index * input.frameCount / repeats), size: size)
                    }
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    print("\(file)\tfps\t\(String(format: "%.2f", Double(repeats) / seconds))")
                    continue
                }
                let start = DispatchTime.now().uptimeNanoseconds
                let input = try renderer.prepare(animation)
                let bitmap = try renderer.render(input, at: try LottieFrameTime(spec ?? .number(0), of: animation), size: LottieFrameSize(width: width))
                let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                let visible = stride(from: 3, to: bitmap.pixels.count, by: 4).reduce(0) { $0 + (bitmap.pixels[$1] == 0 ? 0 : 1) }
                line = "rendered\t\(bitmap.width)x\(bitmap.height) frames=\(input.frameCount) visiblePixels=\(visible)"
                    + " omittedImages=\(input.omittedImageCount) ms=\(String(format: "%.1f", milliseconds))"
            } catch let error as LottieRenderError {
                line = "\(error.shortDescription)\t\(error.message)"
            } catch let error as LottieError {
                line = "\(error.shortDescription)\t\(error.message)"
            }
            print("\(file)\t\(line)")
        }
    }
}
