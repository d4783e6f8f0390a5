import ArgumentParser
import AssetImaging
import AssetLoading
import AssetPipeline
import AssetStorage
import AssetWorkers
import Foundation

/// `assetpipe prefetch LIST`: fetch every URL of a list into the cache.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Fetch every URL of a list into the cache, a few at a time.",
        discussion: """
            LIST holds one URL per line (http or https), optionally followed by a tab and a kind \
            (image, lottie, video, raw); blank lines and lines starting with # are skipped. Without a \
            kind, it is guessed from the response. A URL already cached and fresh costs no request, so \
            running the same list again fetches only what changed. Duplicates are fetched once.

            Every item is downloaded whole into the disk cache, videos too (range reads are then \
            served from there). With --video-prefix BYTES, a video (named video, or with a video \
            extension) is fetched only as its first BYTES, into the chunk store.

            Ctrl-C (SIGINT) or SIGTERM stops cleanly: loads in flight are cancelled, nothing partial \
            is cached, the report is written; a second signal exits at once.

            Exit status: 0 when every item succeeded, 1 when some failed, 2 on bad usage (an \
            unreadable list, a bad flag), 130 or 143 when stopped by SIGINT or SIGTERM.
            """)

    @Argument(help: "The list: a file, or - for standard input.")
    var list: String

    @Option(help: ArgumentHelp("Items in flight at once.", valueName: "n"))
    var concurrency = 8

    @Option(name: .customLong("per-host"), help: ArgumentHelp("Items in flight at once per origin host.", valueName: "n"))
    var perHost = 4

    @Option(help: ArgumentHelp("Start at most this many requests per second.", valueName: "n"))
    var rate: Double?

    @Option(help: ArgumentHelp(
        "useProtocolCachePolicy (default), networkOnly, cacheOnly, cacheFirst, networkFirst, cacheAndNetwork, or cacheWithTimeout:SECONDS.",
        valueName: "name"))
    var strategy = "useProtocolCachePolicy"

    @Option(help: ArgumentHelp("Retries of a failed request (connection errors, 5xx, 429, timeouts).", valueName: "n"))
    var retries = 2

    @Option(help: ArgumentHelp("Seconds one request may take, head and body.", valueName: "seconds"))
    var timeout = 60.0

    @Flag(name: .customLong("validate"), help: "Also check what was fetched: decode images, parse Lottie, check that a video starts like a known container.")
    var validateItems = false

    @Option(name: .customLong("video-prefix"), help: ArgumentHelp(
        "Fetch only the first BYTES of each video (named video, or with a video extension) into the chunk store, instead of the whole video into the disk cache.",
        valueName: "bytes"))
    var videoPrefix: Int64?

    @Option(help: ArgumentHelp("Write the JSON report to this file.", valueName: "file"))
    var report: String?

    @Flag(help: "Print the JSON report on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress display.")
    var quiet = false

    @Option(name: .customLong("progress-interval"), help: ArgumentHelp(
        "Seconds between progress lines when standard error is not a terminal.", valueName: "seconds"))
    var progressInterval = 5.0

    @Flag(name: .customLong("keep-local"), help: "With --via, also keep what is fetched in the local cache (by default the tier is warmed and nothing is stored here).")
    var keepLocal = false

    @Option(name: .customLong("variant"), help: ArgumentHelp(
        "Also make this image variant of every image (repeatable): 'w=256,format=webp'. format=auto makes the AVIF, WebP and JPEG/PNG answers browsers get. A variant with a frame ('frame=0,w=320') is made of every Lottie animation instead. With --via, the tier node makes and keeps it.",
        valueName: "transform"))
    var variants: [String] = []

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions

    /// The parsed `--variant` transforms.
    func variantTransforms() throws -> [ImageTransform] {
        try variants.map { text in
            do {
                return try ImageTransform(parsing: text)
            } catch let error as ImagingError {
                throw ValidationError("--variant '\(text)': \(error.message)")
            }
        }
    }

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard perHost >= 1 else { throw ValidationError("--per-host must be at least 1") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number") }
        guard CacheStrategy(name: strategy) != nil else { throw ValidationError("unknown strategy '\(strategy)'") }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        if let videoPrefix, videoPrefix <= 0 { throw ValidationError("--video-prefix must be positive") }
        guard progressInterval > 0 else { throw ValidationError("--progress-interval must be positive") }
        if try tier.tier() != nil, !keepLocal, validateItems {
            throw ValidationError("--validate needs --keep-local when warming a tier with --via")
        }
        if keepLocal, try tier.tier() == nil { throw ValidationError("--keep-local goes with --via") }
        _ = try variantTransforms()
    }

    func run() async throws {
        let feed: PrefetchListFeed
        do {
            feed = try PrefetchListFeed.open(path: list)
        } catch {
            CLIOutput.error("\(error)")
            throw ExitCode(2)
        }
        var loader = AssetLoader.Configuration()
        loader.retry = AssetLoader.RetryPolicy(maxAttempts: retries + 1)
        loader.totalTimeout = .milliseconds(Int64(timeout * 1000))
        loader.readTimeout = .milliseconds(Int64(min(timeout, 30) * 1000))
        loader.connectTimeout = .milliseconds(Int64(min(timeout, 10) * 1000))
        loader.maxConnectionsPerHost = max(concurrency, perHost)
        loader = try tier.loaderConfiguration(loader)
        let warmsTierOnly = loader.tier != nil && !keepLocal
        let manager = try await AssetsManager.open(configuration: .init(
            disk: .init(directory: cache.directory, maxBytes: .max, maxCount: .max), loader: loader))
        let variants = try variantTransforms()
        // frames made here render in worker processes of this executable, as the service's do, and
        // HEIF, AVIF, TIFF, SVG and JPEG XL sources decode there when they are validated or made
        // into variants (the workers start on first use: a list without such images starts none)
        let renderWorkers = !warmsTierOnly && (validateItems || !variants.isEmpty)
            ? WorkerPool(configuration: .init(executable: "/proc/self/exe", arguments: ["worker"])) : nil
        defer { renderWorkers?.shutdown() }
        let prefetcher = Prefetcher(manager: manager, configuration: .init(
            concurrency: concurrency, perHost: perHost, rate: rate, strategy: CacheStrategy(name: strategy)!,
            validate: validateItems, videoPrefix: videoPrefix, warmsTierOnly: warmsTierOnly,
            variants: variants, lottie: LottieUtil.Configuration(renderWorkers: renderWorkers), imageWorkers: renderWorkers))
        let writer = (report != nil || json) ? try PrefetchReportWriter() : nil
        let trap = SignalTrap { _ in prefetcher.stop() }
        let progress = quiet ? nil : PrefetchProgressPrinter(prefetcher: prefetcher, interval: progressInterval)
        progress?.countItems(ofList: list)
        progress?.start()

        let summary = await prefetcher.run(feed) { result in writer?.append(result) }

        progress?.finish()
        try? await manager.shutdown()
        if let readError = feed.readError { CLIOutput.error("reading \(list): \(readError)") }
        if let writer {
            do {
                if let report { try writer.write(summary: summary, to: report) }
                if json { try writer.write(summary: summary, to: nil) }
            } catch {
                CLIOutput.error("cannot write the report: \(error)")
            }
        }
        FileHandle.standardError.write(Data((Self.describe(summary) + "\n").utf8))
        if let signal = trap.signal { throw ExitCode(128 + signal) }
        if summary.failed > 0 || feed.readError != nil { throw ExitCode.failure }
    }

    /// The closing summary line.
    static func describe(_ summary: PrefetchSummary) -> String {
        var text = "assetpipe: prefetch \(summary.interrupted ? "stopped" : "done"): \(summary.total) items"
        text += " (\(summary.downloaded) downloaded, \(summary.revalidated) revalidated, \(summary.cached) cached"
        if summary.stale > 0 { text += ", \(summary.stale) stale" }
        text += ", \(summary.failed) failed"
        if summary.duplicates > 0 { text += ", \(summary.duplicates) duplicates skipped" }
        if summary.cancelled > 0 { text += ", \(summary.cancelled) cancelled" }
        if summary.variants > 0 { text += ", \(summary.variants) variants" }
        if summary.storeFailures > 0 { text += ", \(summary.storeFailures) not stored: the disk cache refused them" }
        text += "), \(CLIOutput.bytes(summary.bytesDownloaded)) downloaded in "
        text += String(format: "%.2f s", summary.elapsedSeconds)
        if !summary.itemsPerNode.isEmpty {
            text += "; tier nodes: " + summary.itemsPerNode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        return text
    }
}
