import ArgumentParser
import AssetPipeline
import AssetStorage
import AsyncHTTPClient
import Foundation
import NIOCore

/// Reads a list of byte ranges of one URL, in order, either through ``VideoUtil`` (its chunk
/// cache in `--cache-dir`) or, with `--http`, as plain `Range` requests to the URL (nginx's slice
/// cache in front of the origin), and prints one line:
/// `seconds=… ranges=… bytes=… MBps=… originRequests=… fromCache=… fromOrigin=… mismatches=…`.
/// With `--file` every range is compared with the file's bytes (outside the timed part).
/// `scripts/bench.d/60-video.sh` runs it cold and cached for both.
struct VideoBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video", abstract: "Read byte ranges through VideoUtil, or through an HTTP range cache with --http.")

    @Option(help: "The resource's URL.")
    var url: String

    @Option(help: "A file of ranges, one `START END` (end exclusive) a line.")
    var ranges: String

    @Option(help: "The cache directory (VideoUtil runs).")
    var cacheDir: String?

    @Option(help: "The chunk size in bytes (VideoUtil runs).")
    var chunkSize: Int = 1 << 20

    @Flag(help: "Send plain Range requests to the URL instead of using VideoUtil.")
    var http = false

    @Option(help: "The resource as a local file, to check every range against.")
    var file: String?

    func run() async throws {
        let list: [Range<Int64>] = try String(contentsOfFile: ranges, encoding: .utf8).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]), end > start else { return nil }
            return start..<end
        }
        let reference = try file.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) }
        var mismatches = 0
        var seconds = 0.0
        var bytes: Int64 = 0
        var statistics = VideoReadStatistics()
        func check(_ data: Data, _ range: Range<Int64>) throws {
            guard let reference else { return }
            try reference.seek(toOffset: UInt64(range.lowerBound))
            let expected = try reference.read(upToCount: Int(range.upperBound - range.lowerBound)) ?? Data()
            if expected != data { mismatches += 1 }
        }
        if http {
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            for range in list {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound - 1)")
                let start = DispatchTime.now().uptimeNanoseconds
                let response = try await client.execute(request, timeout: .seconds(120))
                let body = try await response.body.collect(upTo: Int(range.upperBound - range.lowerBound) + 1)
                seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                guard response.status.code == 206 else { throw ValidationError("\(url) answered \(response.status.code)") }
                bytes += Int64(body.readableBytes)
                try check(Data(body.readableBytesView), range)
            }
            try await client.shutdown()
        } else {
            guard let cacheDir else { throw ValidationError("--cache-dir is needed without --http") }
            var configuration = AssetsManager.Configuration(directory: URL(fileURLWithPath: cacheDir))
            configuration.chunks.chunkSize = chunkSize
            let manager = try await AssetsManager.open(configuration: configuration)
            let video = VideoUtil(manager: manager)
            for range in list {
                let start = DispatchTime.now().uptimeNanoseconds
                let result = try await video.read(address: url, byteRange: .bounded(range))
                seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                bytes += Int64(result.data.count)
                statistics.bytesFromCache += result.statistics.bytesFromCache
                statistics.bytesFromOrigin += result.statistics.bytesFromOrigin
                statistics.originRequests += result.statistics.originRequests
                try check(result.data, range)
            }
            try await manager.shutdown()
        }
        print(String(format: "seconds=%.3f ranges=%d bytes=%lld MBps=%.1f originRequests=%d fromCache=%lld fromOrigin=%lld mismatches=%d",
                     seconds, list.count, bytes, Double(bytes) / 1e6 / max(seconds, 1e-9), statistics.originRequests,
                     statistics.bytesFromCache, statistics.bytesFromOrigin, mismatches))
        if mismatches > 0 { throw ExitCode.failure }
    }
}
