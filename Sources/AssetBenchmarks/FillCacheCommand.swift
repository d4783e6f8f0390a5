import ArgumentParser
import AssetStorage
import Foundation

/// Fills a disk cache with small entries (for the index benchmarks: opening and memory at a million
/// entries) and closes it, so that it opens from its snapshot. Prints one line:
/// `entries=… seconds=… indexBytes=… bytesPerEntry=…`.
struct FillCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fill-cache", abstract: "Fill a disk cache with small entries and close it.")

    @Option(help: "The cache directory.")
    var directory: String

    @Option(help: "Entries to hold when done (entries already there count).")
    var entries: Int = 1_000_000

    @Option(help: "Bytes per entry.")
    var size: Int = 64

    func run() async throws {
        let start = DispatchTime.now().uptimeNanoseconds
        let cache = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: directory), maxBytes: .max, maxCount: .max))
        let payload = [UInt8](repeating: 1, count: size)
        var i = cache.statistics.entries
        while i < entries {
            try cache.store(payload, forKey: "https://cdn.example.org/filled/\(i).json", info: .init(kind: .lottie))
            i += 1
        }
        let stats = cache.statistics
        cache.close()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "entries=%d seconds=%.1f indexBytes=%d bytesPerEntry=%.1f",
                     stats.entries, seconds, stats.indexBytes, Double(stats.indexBytes) / Double(max(1, stats.entries))))
    }
}
