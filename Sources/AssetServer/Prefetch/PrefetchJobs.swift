import AssetPipeline
import Foundation
import Logging
import Synchronization

/// The service's prefetch jobs, bounded in number: at most ``AssetServer/Configuration/maxPrefetchJobs``
/// are kept; a new job replaces the oldest finished one, and is refused while all are running. Each
/// job's list goes through a temporary file (unlinked once opened) and its report is spooled on disk,
/// so a job holds little memory whatever its length.
final class PrefetchJobs: Sendable {
    let manager: AssetsManager
    let configuration: AssetServer.Configuration
    let logger: Logger
    private let jobs = Mutex<[PrefetchJob]>([])

    init(manager: AssetsManager, configuration: AssetServer.Configuration, logger: Logger) {
        self.manager = manager
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts a job over `lines` (the prefetch list format).
    func start(lines: [String], prefetch: Prefetcher.Configuration) throws -> PrefetchJob {
        let id = Self.newID()
        let directory = FileManager.default.temporaryDirectory.path
        let listPath = "\(directory)/assetpipe-job-\(getpid())-\(id).list"
        let reportPath = "\(directory)/assetpipe-job-\(getpid())-\(id).json"
        let job = PrefetchJob(id: id, items: lines.count, prefetcher: Prefetcher(manager: manager, configuration: prefetch), reportPath: reportPath)
        var dropped: PrefetchJob?
        try jobs.withLock { jobs in
            if jobs.count >= max(1, configuration.maxPrefetchJobs) {
                guard let oldest = jobs.firstIndex(where: { !$0.isRunning }) else {
                    throw AssetServerError.tooManyJobs(configuration.maxPrefetchJobs)
                }
                dropped = jobs.remove(at: oldest)
            }
            jobs.append(job)
        }
        dropped?.discard()
        do {
            var text = lines.joined(separator: "\n")
            text.append("\n")
            guard FileManager.default.createFile(atPath: listPath, contents: Data(text.utf8)) else {
                throw AssetServerError.internalError("cannot spool the prefetch list")
            }
            defer { unlink(listPath) }
            let feed = try PrefetchListFeed.open(path: listPath)
            let writer = try PrefetchReportWriter()
            job.start(feed, writer: writer) { [logger] job in
                logger.info("prefetch job ended", metadata: ["job": "\(job.id)", "state": "\(job.phase.rawValue)"])
            }
        } catch {
            jobs.withLock { $0.removeAll { $0 === job } }
            throw error
        }
        logger.info("prefetch job started", metadata: ["job": "\(id)", "items": "\(lines.count)"])
        return job
    }

    func job(id: String) -> PrefetchJob? {
        jobs.withLock { $0.first { $0.id == id } }
    }

    /// Cancels a running job, or forgets a finished one; nil when there is no such job.
    func cancel(id: String) -> PrefetchJob? {
        guard let job = job(id: id) else { return nil }
        if job.isRunning {
            job.cancel()
        } else {
            jobs.withLock { $0.removeAll { $0 === job } }
            job.discard()
        }
        return job
    }

    /// Cancels every running job (at shutdown).
    func cancelAll() {
        for job in jobs.withLock({ $0 }) where job.isRunning { job.cancel() }
    }

    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
