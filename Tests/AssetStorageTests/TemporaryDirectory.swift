import AssetTestSupport
import Foundation
import Testing

/// A fresh directory under the system's temporary folder, removed when the test ends.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("assetpipe-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Starts the built helper `name` (a writer that prints one line per finished write), waits until it
/// has reported `writes` of them, then kills it with SIGKILL in the middle of the next write and
/// returns how it ended. The progress is read on a thread of its own, off the cooperative pool.
func killProduct(_ name: String, _ arguments: [String], afterWrites writes: Int) async throws -> ChildProcess.Termination {
    let process = try ChildProcess(builtProduct(name), arguments, stderr: .inherit)
    let reader = process.standardOutput!
    let reported: Int = await onOwnThread {
        var lines = 0
        while lines < writes {
            let data = reader.availableData  // blocks until the worker writes or exits
            if data.isEmpty { break }
            lines += data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        }
        return lines
    }
    #expect(reported >= writes && process.isRunning, "the writer must still be writing when it is killed")
    process.send(SIGKILL)
    return await process.wait()
}
