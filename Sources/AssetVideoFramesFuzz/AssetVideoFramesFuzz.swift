import AssetFuzzSupport
import AssetVideoFrames

/// The decoder's limits: the service's, with the pixels and packets held small so that each run
/// stays fast (libFuzzer's inputs are at most 256 KiB here).
let decoder = VideoFrameDecoder(configuration: .init(maxPixels: 1 << 20, maxPackets: 200, threads: 1))

/// The preview decoder's, as small.
let previews = VideoPreviewDecoder(configuration: .init(maxPixels: 1 << 20, maxFrames: 50, maxSeconds: 5, maxPackets: 200, threads: 1))

/// Runs one input the way a worker decodes a frame: the container through positional reads of the
/// input's bytes, the first frame and the frame at 50%, each at its own size and scaled to 32 pixels
/// wide; then a preview of its first second at 10 fps, 32 pixels wide, as a preview worker decodes
/// one. Refusals are expected; a frame that comes back must have the size it says. FFmpeg runs in
/// this process: its crashes stop the fuzzer, as they would stop a frame worker.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    let data = [UInt8](bytes)
    let source = VideoFrameSource(size: Int64(data.count)) { offset, count in
        guard offset >= 0, offset <= Int64(data.count) else { return nil }
        return Array(data[Int(offset)..<min(data.count, Int(offset) + count)])
    }
    for (time, size) in [(VideoFrameTime.first, VideoFrameSize.natural), (.progress(0.5), VideoFrameSize(width: 32))] {
        guard let frame = try? decoder.decode(source, at: time, size: size) else { continue }
        let bitmap = frame.bitmap
        if bitmap.width <= 0 || bitmap.height <= 0 || bitmap.pixels.count != bitmap.width * bitmap.height * 4 {
            fatalError("a frame of \(bitmap.width)x\(bitmap.height) with \(bitmap.pixels.count) bytes")
        }
        if let width = size.width, bitmap.width != width { fatalError("a frame \(bitmap.width) wide where \(width) was asked") }
    }
    var count = 0
    let facts = try? previews.decode(source, spec: VideoPreviewSpec(to: .seconds(1), coverWidth: 32)) { bitmap, duration in
        if bitmap.width <= 0 || bitmap.height <= 0 || bitmap.pixels.count != bitmap.width * bitmap.height * 4 || duration <= 0 {
            fatalError("a preview frame of \(bitmap.width)x\(bitmap.height) with \(bitmap.pixels.count) bytes for \(duration) ms")
        }
        count += 1
    }
    if let facts, facts.frames != count || count > 50 { fatalError("a preview of \(count) frames says \(facts.frames)") }
}

/// libFuzzer's target when built by scripts/fuzz (`-sanitize=fuzzer`); without the fuzzer, replays
/// the files named on the command line through the same path (FFmpeg included, so a crasher
/// crashes this process: run it in a process of its own).
@main
struct AssetVideoFramesFuzz {
    static func main() throws { try FuzzDriver.main(fuzzOne) }
}
