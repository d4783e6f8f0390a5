import Foundation
import Synchronization

/// A running `assetpipe` process that a test can feed, signal and measure.
///
/// Its peak resident memory is sampled from `/proc/PID/status` (`VmHWM`) every few
/// milliseconds until it exits.
final class RunningCommand: Sendable {
    let process: Process
    private let output: Mutex<(stdout: Data, stderr: Data)> = Mutex((Data(), Data()))
    private let peak = Mutex(0)
    private let readers = DispatchGroup()

    /// Starts `assetpipe ARGUMENTS`, with `stdin` written to its standard input (then closed).
    init(_ arguments: [String], stdin: Data? = nil) throws {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        process = Process()
        process.executableURL = dir.appendingPathComponent("assetpipe")
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        for (pipe, isOut) in [(out, true), (err, false)] {
            readers.enter()
            Thread { [self] in
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                output.withLock { if isOut { $0.stdout = data } else { $0.stderr = data } }
                readers.leave()
            }.start()
        }
        Thread { [self] in
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }.start()
        let pid = process.processIdentifier
        Thread { [self] in
            while process.isRunning {
                if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                    let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                    let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
                {
                    peak.withLock { $0 = max($0, kib * 1024) }
                }
                usleep(5_000)
            }
        }.start()
    }

    /// The highest resident memory seen, in bytes.
    var peakResidentBytes: Int { peak.withLock { $0 } }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits (on a thread of its own, never the cooperative pool) for the process to exit.
    func wait() async -> (status: Int32, stdout: String, stderr: String) {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                process.waitUntilExit()
                readers.wait()
                let (stdout, stderr) = output.withLock { ($0.stdout, $0.stderr) }
                continuation.resume(returning: (
                    process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)))
            }.start()
        }
    }
}
