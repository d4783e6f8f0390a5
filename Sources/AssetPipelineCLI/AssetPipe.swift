import ArgumentParser
import AssetStorage
import Foundation

/// `assetpipe`: fetch, cache and decode media assets.
///
/// Exit status: 0 on success, 1 on a failure the command reports, 2 on bad usage.
@main
struct AssetPipe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpipe",
        abstract: "Fetch media assets over HTTP, keep them in layered caches, decode them.",
        version: AssetPipelineVersion.current,
        subcommands: [
            CacheCommand.self,
            ConvertCommand.self,
            DecodeCommand.self,
            GetCommand.self,
            LottieCommand.self,
            PrefetchCommand.self,
            RangeCommand.self,
            StoryboardCommand.self,
            ServeCommand.self,
            SignCommand.self,
            WorkerCommand.self,
        ]
    )

    /// Runs the command, mapping argument errors to exit status 2 (ArgumentParser uses 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
