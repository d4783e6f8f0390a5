import AssetTestSupport
import Foundation

/// The built `assetpipe` binary, beside this test bundle.
var assetpipePath: String { builtProduct("assetpipe") }

/// Runs `executable` with `arguments` to its end and returns its exit status (128 + the signal's
/// number for a signal) and output. Little is written to standard output (the runs are quiet or
/// short): it is read first, then standard error.
func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, stdout: String, stderr: String) {
    let (termination, stdout, stderr) = try ChildProcess.run(executable, arguments, environment: environment)
    return (termination.status, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// Runs the built `assetpipe` binary.
func assetpipe(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    try runProcess(assetpipePath, arguments, environment: environment)
}

/// Runs the built `assetpipe` binary from async code (see ``onOwnThread(_:)``).
func assetpipeAsync(_ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await onOwnThread { try assetpipe(arguments, environment: environment) }
}

/// Runs `command` (found on the PATH) from async code (see ``onOwnThread(_:)``).
func shellAsync(_ command: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await onOwnThread { try runProcess("/usr/bin/env", command) }
}
