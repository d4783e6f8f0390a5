import Foundation
import Synchronization

/// Collects the items of a prefetch report in a spool file as they finish (memory stays flat), then
/// writes `{"summary": {...}, "items": [...]}` to a file (atomically: a temporary file, then a rename)
/// or to standard output: the report of `assetpipe prefetch --report` and of the service's prefetch
/// jobs.
public final class PrefetchReportWriter: Sendable {
    private struct Spool {
        var handle: FileHandle
        var count = 0
    }

    private let path: String
    private let spool: Mutex<Spool>

    /// Creates the spool file in the temporary directory.
    public init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("assetpipe-report-\(getpid())-\(UUID().uuidString).jsonl").path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        spool = Mutex(Spool(handle: handle))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Appends one item.
    public func append(_ result: PrefetchResult) {
        guard let data = try? JSONSerialization.data(withJSONObject: Self.object(for: result), options: Self.options) else {
            return
        }
        spool.withLock { spool in
            spool.handle.write(spool.count == 0 ? data : Data(",\n".utf8) + data)
            spool.count += 1
        }
    }

    /// Writes the whole report to `destination` (a path) or, when nil, to standard output.
    /// `leading` is JSON text of members written before `summary` (`"id":"...",`), for a report
    /// that says more about its run.
    public func write(summary: PrefetchSummary, to destination: String?, leading: String = "") throws {
        let summaryData = try JSONSerialization.data(withJSONObject: Self.object(for: summary), options: Self.options)
        let out: FileHandle
        var temporary: String?
        if let destination {
            let tmp = destination + ".tmp-\(getpid())"
            guard FileManager.default.createFile(atPath: tmp, contents: nil), let handle = FileHandle(forWritingAtPath: tmp) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination])
            }
            out = handle
            temporary = tmp
        } else {
            out = FileHandle.standardOutput
        }
        do {
            out.write(Data("{\(leading)\"summary\": ".utf8) + summaryData + Data(",\n\"items\": [\n".utf8))
            try spool.withLock { spool in
                try spool.handle.synchronize()
                let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? reader.close() }
                while let piece = try reader.read(upToCount: 1 << 20), !piece.isEmpty { out.write(piece) }
            }
            out.write(Data("\n]}\n".utf8))
            if let temporary, let destination {
                try out.synchronize()
                try out.close()
                guard rename(temporary, destination) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination])
                }
            }
        } catch {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw error
        }
    }

    private static let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]

    static func object(for result: PrefetchResult) -> [String: Any] {
        var object: [String: Any] = [
            "url": result.url, "line": result.line, "outcome": result.outcome,
            "kind": result.kind?.rawValue ?? NSNull(), "status": result.status ?? NSNull(),
            "bytes": result.bytes, "bytesDownloaded": result.bytesDownloaded, "stored": result.stored,
        ]
        if let node = result.node { object["node"] = node }
        if let storeFailure = result.storeFailure { object["storeFailure"] = storeFailure }
        if result.variants > 0 { object["variants"] = result.variants }
        if let failure = result.failure {
            object["error"] = ["code": failure.code, "message": failure.message]
        } else {
            object["error"] = NSNull()
        }
        return object
    }

    /// The summary object of a report.
    public static func object(for summary: PrefetchSummary) -> [String: Any] {
        var object: [String: Any] = [
            "total": summary.total, "downloaded": summary.downloaded, "revalidated": summary.revalidated,
            "cached": summary.cached, "stale": summary.stale, "failed": summary.failed,
            "duplicates": summary.duplicates, "bytesDownloaded": summary.bytesDownloaded,
            "elapsedSeconds": (summary.elapsedSeconds * 1000).rounded() / 1000,
            "interrupted": summary.interrupted, "cancelled": summary.cancelled, "storeFailures": summary.storeFailures, "variants": summary.variants,
        ]
        if !summary.itemsPerNode.isEmpty { object["itemsPerNode"] = summary.itemsPerNode }
        return object
    }
}
