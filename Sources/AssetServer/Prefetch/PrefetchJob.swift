import AssetPipeline
import Foundation
import Synchronization

/// One prefetch run the service started: its prefetcher, its report spooled on disk, its state.
final class PrefetchJob: Sendable {
    enum Phase: String, Sendable {
        case running, done, cancelled, failed
    }

    let id: String
    let items: Int
    let created: Date
    let prefetcher: Prefetcher
    /// Where the finished report is written (removed with the job).
    let reportPath: String
    private let phaseState = Mutex(Phase.running)
    private let taskState = Mutex<Task<Void, Never>?>(nil)

    init(id: String, items: Int, prefetcher: Prefetcher, reportPath: String) {
        self.id = id
        self.items = items
        self.created = Date()
        self.prefetcher = prefetcher
        self.reportPath = reportPath
    }

    var phase: Phase { phaseState.withLock { $0 } }
    var isRunning: Bool { phase == .running }

    /// Runs the list of `feed`, spooling each item, and writes the report when the run ends.
    func start(_ feed: PrefetchListFeed, writer: PrefetchReportWriter, onEnd: @escaping @Sendable (PrefetchJob) -> Void) {
        let task = Task {
            let summary = await prefetcher.run(feed) { writer.append($0) }
            let phase: Phase = summary.interrupted ? .cancelled : .done
            do {
                try writer.write(summary: summary, to: reportPath, leading: Self.leading(id: id, phase: phase))
                phaseState.withLock { $0 = phase }
            } catch {
                phaseState.withLock { $0 = .failed }
            }
            onEnd(self)
        }
        taskState.withLock { $0 = task }
    }

    /// Stops the run: no new item starts, the items in flight are cancelled.
    func cancel() {
        prefetcher.stop()
    }

    /// Waits until the run has ended and its report is written.
    func wait() async {
        await taskState.withLock { $0 }?.value
    }

    /// Removes the report file.
    func discard() {
        try? FileManager.default.removeItem(atPath: reportPath)
    }

    /// The members written before the report's summary.
    static func leading(id: String, phase: Phase) -> String {
        "\"id\": \"\(id)\", \"state\": \"\(phase.rawValue)\",\n"
    }
}
