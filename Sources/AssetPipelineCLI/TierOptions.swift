import ArgumentParser
import AssetLoading
import Foundation

/// `--via URL` and `--via-fallback`: fetch misses through a tier of `assetpipe serve` nodes (a
/// second-level cache) instead of from the origin.
struct TierOptions: ParsableArguments {
    @Option(name: .customLong("via"), help: ArgumentHelp(
        "Fetch what the local cache misses through this tier of 'assetpipe serve' nodes (http://balancer:port); default $ASSETPIPE_VIA.",
        valueName: "url"))
    var via: String?

    @Option(name: .customLong("via-fallback"), help: ArgumentHelp(
        "When the tier is down or answers 5xx: 'origin' (fetch directly, the default) or 'fail'; default $ASSETPIPE_VIA_FALLBACK.",
        valueName: "mode"))
    var viaFallback: String?

    // every command that loads through the tier options can read s3:// URLs too
    @OptionGroup var s3: S3Options

    func validate() throws {
        _ = try tier(environment: ProcessInfo.processInfo.environment)
    }

    /// The tier from the flags, else the environment; nil when neither names one.
    func tier(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CacheTier? {
        let fallbackName = viaFallback ?? environment["ASSETPIPE_VIA_FALLBACK"].flatMap { $0.isEmpty ? nil : $0 } ?? "origin"
        guard let fallback = CacheTier.Fallback(rawValue: fallbackName) else {
            throw ValidationError("--via-fallback must be 'origin' or 'fail' (got '\(fallbackName)')")
        }
        guard let url = via ?? environment["ASSETPIPE_VIA"].flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        guard let location = URL(string: url), let tier = CacheTier(url: location, fallback: fallback) else {
            throw ValidationError("--via must be an http(s)://host[:port] URL (got '\(url)')")
        }
        return tier
    }

    /// `base` with the tier set.
    func loaderConfiguration(_ base: AssetLoader.Configuration = AssetLoader.Configuration()) throws -> AssetLoader.Configuration {
        var loader = base
        loader.tier = try tier()
        loader.s3 = try s3.configuration()
        return loader
    }
}
