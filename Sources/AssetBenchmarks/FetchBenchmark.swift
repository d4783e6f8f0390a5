import ArgumentParser
import AssetLoading
import AssetStorage
import Foundation

/// Loads a list of URLs through an `AssetLoader` in-process, `concurrency` at a time, and prints
/// one line: `seconds=… requests=… downloaded=… revalidated=… cached=… stale=… failed=… bytes=…`.
/// `scripts/bench.d/30-loader.sh` runs it cold, warm and stale beside curl and aria2c.
struct FetchBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Load a URL list through the AssetLoader (cold, warm or stale runs).")

    @Option(help: "A file with one URL per line.")
    var urls: String

    @Option(help: "The disk cache directory.")
    var cacheDir: String

    @Option(help: "Loads in flight at once (also the connections per host).")
    var concurrency: Int = 16

    func run() async throws {
        let list = try String(contentsOfFile: urls, encoding: .utf8).split(separator: "\n").filter { !$0.isEmpty }.map { line in
            guard let url = URL(string: String(line)) else { throw ValidationError("'\(line)' is not a URL") }
            return url
        }
        let disk = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: cacheDir), maxBytes: .max, maxCount: .max))
        var config = AssetLoader.Configuration()
        config.maxConnectionsPerHost = concurrency
        let loader = AssetLoader(diskCache: disk, configuration: config)
        var counts: [String: Int] = [:]
        var bytes: Int64 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: (String, Int64).self) { group in
            var next = 0
            func add() {
                let url = list[next]
                next += 1
                group.addTask {
                    do {
                        let response = try await loader.load(AssetRequest(url: url))
                        return (response.outcome.rawValue, response.bytesReceived)
                    } catch {
                        return ("failed", 0)
                    }
                }
            }
            while next < min(concurrency, list.count) { add() }
            while let (outcome, received) = try await group.next() {
                counts[outcome, default: 0] += 1
                bytes += received
                if next < list.count { add() }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        try await loader.shutdown()
        disk.close()
        let fields = ["downloaded", "revalidated", "cached", "stale", "failed"].map { "\($0)=\(counts[$0, default: 0])" }
        print(String(format: "seconds=%.3f requests=%d ", seconds, list.count) + fields.joined(separator: " ") + " bytes=\(bytes)")
    }
}
