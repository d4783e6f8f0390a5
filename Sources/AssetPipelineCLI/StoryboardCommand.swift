import ArgumentParser
import AssetImaging
import AssetPipeline
import AssetVideoFrames
import Foundation

/// `assetpipe storyboard URL --interval 10s --width 160 --output DIR`: a video's storyboard, a
/// sprite sheet and its WebVTT thumbnails track, read by range through the chunk cache.
struct StoryboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyboard",
        abstract: "Make a video's storyboard: a sprite sheet of thumbnails and its WebVTT track.",
        discussion: """
            Writes DIR/storyboard.vtt (one cue a tile, SPRITE#xywh=x,y,w,h), DIR/storyboard.json (the \
            same as JSON) and DIR/storyboard.jpg (or .webp). The video is read by range through the \
            chunk cache: its index and, for each tile, the key frame at or before its time (--exact: \
            the frame at its time, decoded from that key frame). Exits 1 when the video cannot be read \
            or decoded, 2 on bad usage.
            """)

    @Argument(help: "An http or https URL of an MP4, QuickTime, WebM or Matroska video.")
    var url: String

    @Option(help: ArgumentHelp("Seconds between tiles: 10s, 2.5 (default 10s).", valueName: "seconds"))
    var interval: String = "10s"

    @Option(help: ArgumentHelp("A tile's width in pixels (default 160, the height following).", valueName: "px"))
    var width: Int?

    @Option(help: ArgumentHelp("A tile's height in pixels (the width following when --width is not given).", valueName: "px"))
    var height: Int?

    @Option(help: ArgumentHelp("Tiles per row of the sprite (default 10).", valueName: "n"))
    var columns: Int = 10

    @Option(help: ArgumentHelp("The sprite's format: jpg or webp (default jpg).", valueName: "format"))
    var format: String = "jpg"

    @Flag(help: "Each tile is the frame at its time, not the key frame at or before it (reads more).")
    var exact = false

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write into (made if missing).", valueName: "dir"))
    var output: String

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    /// The interval in seconds.
    var seconds: Double? {
        let number = interval.hasSuffix("s") ? interval.dropLast() : Substring(interval)
        guard let value = Double(number), value.isFinite, value >= 0.1, value <= 3_600 else { return nil }
        return value
    }

    var spriteFormat: OutputFormat? {
        switch format.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "webp": .webp
        default: nil
        }
    }

    func validate() throws {
        guard seconds != nil else { throw ValidationError("--interval must be seconds between 0.1 and 3600 (10s, 2.5)") }
        for side in [width, height].compactMap({ $0 }) where !(1...16_383).contains(side) {
            throw ValidationError("--width and --height must be 1 to 16383")
        }
        guard (1...100).contains(columns) else { throw ValidationError("--columns must be 1 to 100") }
        guard spriteFormat != nil else { throw ValidationError("--format must be jpg or webp") }
    }

    func run() async throws {
        let spec = VideoStoryboardSpec(
            interval: seconds!, tileWidth: width ?? (height == nil ? 160 : nil), tileHeight: height, columns: columns,
            keyFramesOnly: !exact)
        let format = spriteFormat!
        let manager = try await AssetsManager.open(configuration: .init(
            disk: .init(directory: cache.directory, maxBytes: .max, maxCount: .max), loader: try tier.loaderConfiguration()))
        let video = VideoUtil(manager: manager)
        let storyboards = VideoStoryboards(images: ImageUtil(manager: manager), video: video)
        let began = Date()
        let outcome: Result<VideoStoryboard, any Error>
        do {
            outcome = .success(try await storyboards.storyboard(for: url, spec: spec, format: format))
        } catch {
            outcome = .failure(error)
        }
        let record = try? await video.cachedRecord(address: url)
        try? await manager.shutdown()
        let board: VideoStoryboard
        switch outcome {
        case .success(let made): board = made
        case .failure(let error):
            if outputOptions.json { CLIOutput.printJSON(["url": url, "error": ["message": "\(error)"]]) }
            CLIOutput.error("\(url): \(error)")
            throw ExitCode.failure
        }
        let sprite = "storyboard." + (format == .webp ? "webp" : "jpg")
        let folder = URL(fileURLWithPath: output, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try board.sprite.write(to: folder.appendingPathComponent(sprite), options: .atomic)
            try Data(board.webVTT(spriteURL: sprite).utf8).write(to: folder.appendingPathComponent("storyboard.vtt"), options: .atomic)
            try Data(board.json(spriteURL: sprite).utf8).write(to: folder.appendingPathComponent("storyboard.json"), options: .atomic)
        } catch {
            CLIOutput.error("\(output): \(error)")
            throw ExitCode.failure
        }
        let elapsed = Date().timeIntervalSince(began)
        if outputOptions.json {
            var object: [String: Any] = [
                "url": url, "output": output, "sprite": sprite, "tiles": board.count, "width": board.width, "height": board.height,
                "tileWidth": board.tileWidth, "tileHeight": board.tileHeight, "columns": board.columns, "duration": board.duration,
                "cache": board.origin.rawValue, "elapsedSeconds": elapsed,
            ]
            if let record {
                object["bytesStored"] = record.presentBytes
                object["totalLength"] = record.info.totalLength.map { $0 as Any } ?? NSNull()
            }
            CLIOutput.printJSON(object)
        } else {
            print("\(board.count) tiles of \(board.tileWidth)x\(board.tileHeight) in a \(board.width)x\(board.height) \(sprite), storyboard.vtt and storyboard.json in \(output) (\(String(format: "%.2f", elapsed)) s)")
        }
    }
}
