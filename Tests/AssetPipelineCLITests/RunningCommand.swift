import AssetTestSupport
import Foundation
import Synchronization

/// A running `assetpipe` process that a test can feed, signal and measure.
///
/// Its peak resident memory is sampled from `/proc/PID/status` (`VmHWM`) every few
/// milliseconds until it exits.
final class RunningCommand: Sendable {
    let process: ChildProcess
    private let output: Mutex<(stdout: Data, stderr: Data)> = Mutex((Data(), Data()))
    private let peak = Mutex(0)
    private let readers = DispatchGroup()
    private let waiters = Mutex<[(text: String, continuation: CheckedContinuation<String?, Never>)]>([])
    private let errorEnded = Mutex(false)

    /// Starts `assetpipe ARGUMENTS`, with `stdin` written to its standard input (then closed).
    init(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws {
        process = try ChildProcess(assetpipePath, arguments, environment: environment, stdin: .pipe)
        for (handle, isOut) in [(process.standardOutput!, true), (process.standardError!, false)] {
            readers.enter()
            Thread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    output.withLock { if isOut { $0.stdout.append(chunk) } else { $0.stderr.append(chunk) } }
                    if !isOut { wakeWaiters(ended: false) }
                }
                if !isOut { wakeWaiters(ended: true) }
                readers.leave()
            }.start()
        }
        let input = process.standardInput!
        Thread {
            if let stdin { input.write(stdin) }
            try? input.close()
        }.start()
        let pid = process.pid
        Thread { [self] in
            while process.isRunning {
                if let bytes = ProcessMemory.value("VmHWM", pid: pid) { peak.withLock { $0 = max($0, bytes) } }
                usleep(5_000)
            }
        }.start()
    }

    /// Waits until standard error contains `text` and returns it so far; nil when the process closed
    /// standard error (exited) without writing it.
    func standardError(containing text: String) async -> String? {
        await withCheckedContinuation { continuation in
            let ready: String?? = waiters.withLock { waiters in
                let current = output.withLock { String(decoding: $0.stderr, as: UTF8.self) }
                if current.contains(text) { return .some(current) }
                if errorEnded.withLock({ $0 }) { return .some(nil) }
                waiters.append((text, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func wakeWaiters(ended: Bool) {
        let current = output.withLock { String(decoding: $0.stderr, as: UTF8.self) }
        let woken = waiters.withLock { waiters -> [(CheckedContinuation<String?, Never>, String?)] in
            if ended { errorEnded.withLock { $0 = true } }
            var woken: [(CheckedContinuation<String?, Never>, String?)] = []
            waiters.removeAll { waiter in
                if current.contains(waiter.text) {
                    woken.append((waiter.continuation, current))
                    return true
                }
                if ended {
                    woken.append((waiter.continuation, nil))
                    return true
                }
                return false
            }
            return woken
        }
        for (continuation, value) in woken { continuation.resume(returning: value) }
    }

    /// The highest resident memory seen, in bytes.
    var peakResidentBytes: Int { peak.withLock { $0 } }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { process.send(signal) }

    /// Waits (on a thread of its own, never the cooperative pool) for the process to exit.
    func wait() async -> (status: Int32, stdout: String, stderr: String) {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                let termination = process.waitUntilExit()
                readers.wait()
                let (stdout, stderr) = output.withLock { ($0.stdout, $0.stderr) }
                continuation.resume(returning: (
                    termination.status, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)))
            }.start()
        }
    }
}
