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

/// libFuzzer's entry point (built by scripts/fuzz with `-sanitize=fuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOne(selectedTarget, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point as `<module>_main`; here it checks the target and hands
/// over to libFuzzer's driver (whose own `main` is then not linked).
@_cdecl("AssetParsersFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard targets[selectedTarget] != nil else {
        let names = targets.keys.sorted().joined(separator: ", ")
        FileHandle.standardError.write(Data("set ASSETPIPE_FUZZ_TARGET to one of: \(names)\n".utf8))
        return 2
    }
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
}
#else
/// Without the fuzzer: `AssetParsersFuzz TARGET FILE...` replays files through a target.
@main
struct AssetParsersFuzz {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let target = arguments.first, targets[target] != nil else {
            print("usage: AssetParsersFuzz TARGET FILE... (TARGET: \(targets.keys.sorted().joined(separator: ", ")))")
            return
        }
        for path in arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { fuzzOne(target, $0) }
            print("ok \(path)")
        }
    }
}
#endif
