import ArgumentParser
import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation

/// `assetpipe get URL`: one load through the cache, reporting where the answer came from.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Load one URL through the cache and report where the answer came from.",
        discussion: """
            Outcomes: downloaded (from the origin), revalidated (a 304 refreshed the cached copy), \
            cached (fresh, no request), stale (served stale where a directive allows it), localFile.
            Exits 1 when the load fails, 2 on bad usage.
            """)

    @Argument(help: "An http, https, s3://bucket/key or file URL.")
    var url: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the body to this file.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "useProtocolCachePolicy (default), networkOnly, cacheOnly, cacheFirst, networkFirst, cacheAndNetwork, or cacheWithTimeout:SECONDS.",
        valueName: "name"))
    var strategy: String = "useProtocolCachePolicy"

    @Option(help: ArgumentHelp("image, lottie, video or raw: picks the body size limit.", valueName: "kind"))
    var kind: String = "raw"

    @Option(help: ArgumentHelp("Request cache directives, e.g. \"max-stale=60\" or \"only-if-cached\".", valueName: "directives"))
    var cacheControl: String?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        guard URL(string: url) != nil else { throw ValidationError("'\(url)' is not a URL") }
        guard AssetKind(rawValue: kind) != nil else { throw ValidationError("unknown kind '\(kind)'") }
        guard CacheStrategy(name: strategy) != nil else { throw ValidationError("unknown strategy '\(strategy)'") }
    }

    func run() async throws {
        let manager = try await AssetsManager.open(configuration: .init(
            disk: .init(directory: cache.directory, maxBytes: .max, maxCount: .max), loader: try tier.loaderConfiguration()))
        let request = AssetRequest(
            url: URL(string: url)!, kind: AssetKind(rawValue: kind)!, strategy: CacheStrategy(name: strategy)!,
            cacheControl: cacheControl)
        var failure: (code: String, message: String)?
        var response: AssetResponse?
        do {
            let loaded = try await manager.load(request)
            response = loaded
            if let output { try await write(loaded, to: output, manager: manager) }
        } catch let error as LoaderError {
            failure = (error.shortDescription, error.message)
        } catch let error as StorageError {
            failure = ("storage", error.description)
        } catch {
            failure = ("io", "\(error)")
        }
        try? await manager.shutdown()

        if let failure {
            if outputOptions.json {
                CLIOutput.printJSON(["url": url, "error": ["code": failure.code, "message": failure.message]])
            }
            CLIOutput.error("\(url): \(failure.code): \(failure.message)")
            throw ExitCode.failure
        }
        guard let response else { throw ExitCode.failure }
        if outputOptions.json {
            var object: [String: Any] = [
                "url": url, "outcome": response.outcome.rawValue, "status": response.status,
                "bytes": response.size, "bytesReceived": response.bytesReceived, "kind": response.kind.rawValue,
                "cacheKey": response.cacheKey, "attempts": response.attempts,
                "elapsedSeconds": response.timings.duration,
            ]
            if let output { object["output"] = output }
            if let route = response.route {
                object["route"] = route.description
                if let node = route.node { object["node"] = node }
            }
            CLIOutput.printJSON(object)
        } else {
            print("\(response.outcome.rawValue) \(response.status) \(response.size) bytes in \(String(format: "%.3f", response.timings.duration)) s: \(url)")
        }
    }

    /// Copies the body to `path` without holding a cached body in memory.
    private func write(_ response: AssetResponse, to path: String, manager: AssetsManager) async throws {
        switch response.body {
        case let .cacheEntry(metadata):
            let disk = manager.diskCache
            let copied = try await manager.runIO { try disk.copyData(forKey: metadata.key, toFile: path) }
            guard copied != nil else {
                throw StorageError(.corrupt, "the cached body of \(metadata.key) could not be read back")
            }
        case let .file(source, _):
            try await manager.runIO {
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                try FileManager.default.copyItem(atPath: source, toPath: path)
            }
        case let .data(data):
            try data.write(to: URL(fileURLWithPath: path))
        }
    }
}

extension CacheStrategy {
    /// Parses a strategy name as the CLI takes it.
    init?(name: String) {
        switch name {
        case "useProtocolCachePolicy": self = .useProtocolCachePolicy
        case "networkOnly": self = .networkOnly
        case "cacheOnly": self = .cacheOnly
        case "cacheFirst": self = .cacheFirst
        case "networkFirst": self = .networkFirst
        case "cacheAndNetwork": self = .cacheAndNetwork
        default:
            let prefix = "cacheWithTimeout:"
            guard name.hasPrefix(prefix), let seconds = Double(name.dropFirst(prefix.count)), seconds >= 0, seconds.isFinite else {
                return nil
            }
            self = .cacheWithTimeout(seconds: seconds)
        }
    }
}
