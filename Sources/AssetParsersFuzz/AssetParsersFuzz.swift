import AssetFuzzSupport
import Foundation
@_spi(Fuzzing) import AssetLoading
@_spi(Fuzzing) import AssetLottie
@_spi(Fuzzing) import AssetPipeline
@_spi(Fuzzing) import AssetServer
@_spi(Fuzzing) import AssetStorage

/// The parsers fuzzed here, by the name `scripts/fuzz` takes: each runs one input and returns the
/// promise it broke, or nil (see the `…Fuzzing` entries of each module).
let targets: [String: @Sendable (UnsafeRawBufferPointer) -> String?] = [
    "cache-control": LoadingFuzzing.cacheControl,
    "http-date": LoadingFuzzing.httpDate,
    "range": ServerFuzzing.range,
    "content-range": PipelineFuzzing.contentRange,
    "prefetch-line": PipelineFuzzing.prefetchLine,
    "dotlottie": LottieContainerFuzzing.dotLottie,
    "chunk-record": StorageFuzzing.chunkRecord,
]

/// Runs one input through `target`; a broken promise stops the process (a finding, like a crash).
func fuzzOne(_ target: String, _ bytes: UnsafeRawBufferPointer) {
    guard let run = targets[target] else { return }
    if let broken = run(bytes) {
        fatalError("\(target): \(broken)")
    }
}

#if ASSETPIPE_FUZZING
/// The target of this run, from `ASSETPIPE_FUZZ_TARGET` (set by scripts/fuzz); read once.
let selectedTarget: String = ProcessInfo.processInfo.environment["ASSETPIPE_FUZZ_TARGET"] ?? ""

/// Whether `selectedTarget` names a target; when it does not, says on stderr which names it takes.
/// A function of its own so that its strings are released before the process exits (a release
/// just before `exit` is dropped, and LeakSanitizer would report the string).
@inline(never)
func checkSelectedTarget() -> Bool {
    guard targets[selectedTarget] == nil else { return true }
    let names = targets.keys.sorted().joined(separator: ", ")
    FileHandle.standardError.write(Data("set ASSETPIPE_FUZZ_TARGET to one of: \(names)\n".utf8))
    return false
}
#endif

/// libFuzzer's target when built by scripts/fuzz (`-sanitize=fuzzer`), the parser named by
/// `ASSETPIPE_FUZZ_TARGET`; without the fuzzer, `AssetParsersFuzz TARGET FILE...` replays files
/// through a target.
@main
struct AssetParsersFuzz {
    static func main() throws {
        #if ASSETPIPE_FUZZING
        guard checkSelectedTarget() else { exit(2) }
        FuzzDriver.runLibFuzzer { fuzzOne(selectedTarget, $0) }
        #else
        let arguments = CommandLine.arguments.dropFirst()
        guard let target = arguments.first, targets[target] != nil else {
            print("usage: AssetParsersFuzz TARGET FILE... (TARGET: \(targets.keys.sorted().joined(separator: ", ")))")
            return
        }
        try FuzzDriver.replay(arguments.dropFirst()) { fuzzOne(target, $0) }
        #endif
    }
}
