import ArgumentParser
import AssetStorage
import Foundation

/// Options shared by the commands that use the cache directory.
struct CacheOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The cache directory (default: $ASSETPIPE_CACHE_DIR, else $XDG_CACHE_HOME/assetpipe, else ~/.cache/assetpipe).",
        valueName: "dir"))
    var cacheDir: String?

    var directory: URL {
        if let cacheDir { return URL(fileURLWithPath: cacheDir, isDirectory: true) }
        return DiskCache.Configuration.defaultDirectory()
    }

    /// Opens the chunk store (`chunks/`, where video ranges live) without a budget of its own, when
    /// the directory has one; nil otherwise (so that inspecting a cache creates nothing).
    func openChunkStoreIfPresent() throws -> ChunkStore? {
        let chunks = ChunkStore.Configuration.defaultDirectory(cacheDirectory: directory)
        guard FileManager.default.fileExists(atPath: chunks.path) else { return nil }
        return try ChunkStore(configuration: .init(directory: chunks, maxBytes: .max))
    }

    /// Opens the disk cache without limits of its own, so that opening it evicts nothing.
    func openDiskCache() throws -> DiskCache {
        try DiskCache(configuration: .init(directory: directory, maxBytes: .max, maxCount: .max))
    }
}

/// `--json`: print the result as one JSON object.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON on standard output.")
    var json = false
}
