#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AssetFuzzSupport
import AssetLottie
import AssetLottieRender

/// The reader's limits here: the service's, with a smaller decompression budget so that each run
/// stays fast (libFuzzer's inputs are at most 64 KiB).
let readerConfiguration: LottieDocumentReader.Configuration = {
    var configuration = LottieDocumentReader.Configuration()
    configuration.maxDecompressedBytes = 8 << 20
    return configuration
}()

/// The renderer's limits: the service's, with embedded images held to 4 megapixels together
/// (rlottie decodes each whole, and a 64 KiB PNG can declare far more).
let renderer: LottieFrameRenderer = {
    var configuration = LottieFrameRenderer.Configuration()
    configuration.maxImagePixels = 4 << 20
    return LottieFrameRenderer(configuration: configuration)
}()

/// The frame size asked for: small, so that rlottie's time goes to the model, not the pixels.
let frameSize = LottieFrameSize(width: 64, height: 64)

/// Runs one input the way the service renders a frame: our reader and parser (JSON, dotLottie or
/// `.tgs`), the renderer's `prepare` and `check` (sizes, frames, cycles, nesting, images), then
/// rlottie's render of frame 0 at 64x64. Every animation of a dotLottie is rendered (the service's
/// default one is among them; choosing it lives in AssetPipeline, which this target does not link).
/// Refusals are expected; a render that succeeds must have the size asked for. rlottie runs in this
/// process: its crashes stop the fuzzer, as they would stop a render worker.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    guard let document = try? LottieDocumentReader(configuration: readerConfiguration).read(Data(bytes)) else { return }
    for entry in document.animations {
        guard let input = try? renderer.prepare(entry.animation) else { continue }
        do {
            try renderer.check(input, at: .frame(0), size: frameSize)
        } catch {
            continue
        }
        guard let bitmap = try? renderer.render(input, at: .frame(0), size: frameSize) else { continue }
        if bitmap.width != 64 || bitmap.height != 64 || bitmap.pixels.count != 64 * 64 * 4 {
            fatalError("a frame of \(bitmap.width)x\(bitmap.height) (\(bitmap.pixels.count) bytes) where 64x64 was asked")
        }
    }
}

/// libFuzzer's target when built by scripts/fuzz (`-sanitize=fuzzer`); without the fuzzer, replays
/// the files named on the command line through the same path (rlottie included, so a crasher
/// crashes this process: run it in a process of its own).
@main
struct AssetLottieFramesFuzz {
    static func main() throws { try FuzzDriver.main(fuzzOne) }
}
