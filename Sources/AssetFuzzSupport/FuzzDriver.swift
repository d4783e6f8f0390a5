#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The driver the package's libFuzzer targets share: one input function, run by libFuzzer or over
/// saved inputs.
///
/// - Built by `scripts/fuzz` (`-sanitize=fuzzer` and `-DASSETPIPE_FUZZING`): ``runLibFuzzer(_:)``
///   hands the process to libFuzzer's driver, with the command line's options and corpus
///   directories, and ends it with the driver's status. `LLVMFuzzerTestOneInput`, which libFuzzer's
///   runtime links against, is defined here once and reaches every fuzz executable with this target.
/// - Built without the fuzzer: ``replay(_:_:)`` runs the files named through the same function,
///   one after another, and prints `ok PATH` after each (a crasher crashes the replaying process).
///
/// ```swift
/// @main
/// struct SomeFuzz {
///     static func main() throws { try FuzzDriver.main(fuzzOne) }
/// }
/// ```
public enum FuzzDriver {
    /// Runs `fuzzOne` over this process's inputs: under libFuzzer, its driver (``runLibFuzzer(_:)``);
    /// otherwise each file named on the command line (``replay(_:_:)``).
    public static func main(_ fuzzOne: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) throws {
        #if ASSETPIPE_FUZZING
        runLibFuzzer(fuzzOne)
        #else
        try replay(CommandLine.arguments.dropFirst(), fuzzOne)
        #endif
    }

    /// Runs each file in `paths` through `fuzzOne`, in turn, and prints `ok PATH` after each.
    /// - Throws: the error of a file that cannot be read.
    public static func replay(_ paths: some Sequence<String>, _ fuzzOne: (UnsafeRawBufferPointer) -> Void) throws {
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { fuzzOne($0) }
            print("ok \(path)")
        }
    }

    #if ASSETPIPE_FUZZING
    /// The input function of this process: set by ``runLibFuzzer(_:)`` before libFuzzer's driver
    /// starts (a C callback cannot capture it).
    static let input = Mutex<(@Sendable (UnsafeRawBufferPointer) -> Void)?>(nil)

    /// Hands the process to libFuzzer's driver, which runs `fuzzOne` over its inputs as the command
    /// line says (options, corpus directories), and exits with the driver's status.
    public static func runLibFuzzer(_ fuzzOne: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) -> Never {
        input.withLock { $0 = fuzzOne }
        var count = CommandLine.argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) })
    }
    #endif
}

#if ASSETPIPE_FUZZING
/// libFuzzer's entry point: runs one input through the function given to
/// `FuzzDriver.runLibFuzzer(_:)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.input.withLock { $0 }?(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver (linked by `-sanitize=fuzzer`), which runs `callback` as the command line says.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
