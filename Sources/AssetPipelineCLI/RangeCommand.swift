import ArgumentParser
import AssetPipeline
import AssetStorage
import Foundation

/// `assetpipe range URL --start N (--length N | --end N)`: one byte range through the chunk cache.
struct RangeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "range",
        abstract: "Read a byte range of a large resource (video) through the chunk cache.",
        discussion: """
            Present chunks come from the cache; missing ones are fetched with Range requests (adjacent \
            ones merged) and kept. The bytes go to --output, else to standard output unless --json is \
            given. A range past the end is clipped; one wholly past it fails. Exits 1 when the read \
            fails, 2 on bad usage.
            """)

    @Argument(help: "An http, https or s3://bucket/key URL.")
    var url: String

    @Option(help: ArgumentHelp("The first byte (0-based).", valueName: "n"))
    var start: Int64

    @Option(help: ArgumentHelp("How many bytes to read.", valueName: "n"))
    var length: Int64?

    @Option(help: ArgumentHelp("The byte after the last one to read (exclusive).", valueName: "n"))
    var end: Int64?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the bytes to this file.", valueName: "file"))
    var output: String?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard start >= 0 else { throw ValidationError("--start must not be negative") }
        switch (length, end) {
        case (nil, nil), (.some, .some): throw ValidationError("give exactly one of --length and --end")
        case (let length?, nil): guard length >= 0 else { throw ValidationError("--length must not be negative") }
        case (nil, let end?): guard end >= start else { throw ValidationError("--end must not be before --start") }
        }
    }

    var range: Range<Int64> { start..<(end ?? start + length!) }

    func run() async throws {
        let manager = try await AssetsManager.open(configuration: .init(
            disk: .init(directory: cache.directory, maxBytes: .max, maxCount: .max), loader: try tier.loaderConfiguration()))
        let video = VideoUtil(manager: manager)
        let began = Date()
        var failure: VideoError?
        var statistics = VideoReadStatistics()
        do {
            statistics = try await copy(video.stream(address: url, range: .bounded(range), windowed: false))  // the whole range is wanted
        } catch let error as VideoError {
            failure = error
        } catch {
            failure = VideoError(.storage, "\(output ?? "standard output"): \(error)", underlying: error)
        }
        try? await manager.shutdown()

        if let failure {
            if outputOptions.json {
                var error: [String: Any] = ["code": failure.shortDescription, "message": failure.message]
                if let total = failure.totalLength { error["totalLength"] = total }
                CLIOutput.printJSON(["url": url, "error": error])
            }
            CLIOutput.error("\(url): \(failure.shortDescription): \(failure.message)")
            throw ExitCode.failure
        }
        let seconds = Date().timeIntervalSince(began)
        if outputOptions.json {
            var object: [String: Any] = [
                "url": url, "bytes": statistics.bytes, "bytesFromCache": statistics.bytesFromCache,
                "bytesFromOrigin": statistics.bytesFromOrigin, "bytesFromSharedFetches": statistics.bytesFromSharedFetches,
                "originRequests": statistics.originRequests, "totalLength": statistics.totalLength.map { $0 as Any } ?? NSNull(),
                "elapsedSeconds": seconds,
            ]
            if let served = statistics.range {
                object["start"] = served.lowerBound
                object["end"] = served.upperBound
            }
            if let output { object["output"] = output }
            CLIOutput.printJSON(object)
        } else if output != nil {
            print("\(statistics.bytes) bytes (\(statistics.bytesFromCache) from cache, \(statistics.bytesFromOrigin) from the origin in \(statistics.originRequests) requests) in \(String(format: "%.3f", seconds)) s: \(url)")
        }
    }

    /// Streams the bytes to the output file (or standard output), never holding the range whole.
    private func copy(_ stream: VideoByteStream) async throws -> VideoReadStatistics {
        var handle: FileHandle?
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil),
                let file = FileHandle(forWritingAtPath: output)
            else {
                throw StorageError(.io, "cannot open \(output) for writing")
            }
            handle = file
        } else if !outputOptions.json {
            handle = FileHandle.standardOutput
        }
        defer { if output != nil { try? handle?.close() } }
        for try await piece in stream {
            try handle?.write(contentsOf: piece)
        }
        return stream.statistics
    }
}
