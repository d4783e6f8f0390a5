import ArgumentParser

/// In-process benchmarks, one subcommand each; `scripts/bench.d/*.sh` run them beside their peers.
///
/// Each subcommand prints a Markdown table (figures, the peer's figure, the ratio) so that the
/// scripts can paste it into BENCHMARKS.md. Build with `-c release`; debug figures mean nothing.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpipe-bench",
        abstract: "AssetPipeline's in-process benchmarks (run through scripts/bench).",
        subcommands: [
            // One line per benchmark; keep the list sorted.
            DecodeBenchmark.self,
            DiskCacheBenchmark.self,
            FetchBenchmark.self,
            FillCacheCommand.self,
            LottieBenchmark.self,
            LottieFramesCommand.self,
            MemoryCacheBenchmark.self,
            RenderSoakCommand.self,
            TransformBenchmark.self,
            UtilsBenchmark.self,
            VideoBenchmark.self,
        ]
    )
}
