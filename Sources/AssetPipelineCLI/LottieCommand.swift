import ArgumentParser
import AssetLottie
import AssetPipeline
import Foundation

/// `assetpipe lottie INPUT`: reads a Lottie file (JSON, `.tgs` or dotLottie) and reports its facts.
struct LottieCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lottie",
        abstract: "Read a Lottie animation (JSON, .tgs or dotLottie; a file or an http(s) URL) and report its facts.",
        discussion: """
            With --strict, validation problems are reported with their JSON paths and exit 1. \
            A dotLottie reports {"animations": [...]}, one object per animation. URLs load through \
            the cache (--cache-dir) as LottieUtil does.
            Exits 1 when the input cannot be read or parsed (or fails --strict), 2 on bad usage.
            """)

    @Argument(help: "A file path, or an http or https URL.")
    var input: String

    @Flag(help: "Validate strictly: required fields, references, cycles, keyframe order.")
    var strict = false

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    func run() async throws {
        let options = LottieUtil.Options(strict: strict)
        let document: LottieDocument
        do {
            document = try await read(options: options)
        } catch {
            let failure = CLIFailure(error)
            if outputOptions.json { CLIOutput.printJSON(["error": failure.json]) }
            CLIOutput.error("\(input): \(failure.code): \(failure.message)")
            for problem in failure.problems ?? [] {
                CLIOutput.error("  \(problem["path"] ?? ""): \(problem["message"] ?? "")")
            }
            throw ExitCode.failure
        }
        if outputOptions.json {
            CLIOutput.printJSON(LottieFacts.json(document))
        } else {
            for entry in document.animations { print(Self.summary(entry.animation, id: entry.id)) }
        }
    }

    /// A URL through the manager and LottieUtil, a file directly on this thread.
    private func read(options: LottieUtil.Options) async throws -> LottieDocument {
        guard let url = RemoteInput(input).url else {
            let limit = LottieUtil.Configuration().reader.parser.maxInputBytes
            return try LottieUtil.read(try LocalInput.read(input, limit: limit), options: options)
        }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            try await LottieUtil(manager: manager).document(for: url, options: options)
        }
    }

    static func summary(_ animation: LottieAnimation, id: String?) -> String {
        func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "-" }
        let duration = animation.durationSeconds.map { String(format: "%.3f s", $0) } ?? "-"
        return "\(id.map { "[\($0)] " } ?? "")v\(animation.version ?? "-") \(text(animation.width))x\(text(animation.height)) "
            + "\(text(animation.frameRate)) fps, frames \(text(animation.inPoint))-\(text(animation.outPoint)) (\(duration)), "
            + "\(animation.layerCount) layers, \(animation.assetCount) assets"
    }
}
