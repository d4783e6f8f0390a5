import AssetPipeline
import Foundation
import Synchronization

/// Shows how a prefetch run is going on standard error: a live line redrawn four times a second on
/// a terminal, otherwise a plain log line every `interval` seconds.
final class PrefetchProgressPrinter: Sendable {
    private let prefetcher: Prefetcher
    private let interval: Double
    private let isTerminal: Bool
    /// The number of items in the list when it is a file (counted by a background thread), else nil.
    private let listTotal = Mutex<Int?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(prefetcher: Prefetcher, interval: Double) {
        self.prefetcher = prefetcher
        self.interval = interval
        isTerminal = isatty(2) == 1
    }

    /// Counts the items of the list at `path` in the background (a regular file only).
    func countItems(ofList path: String) {
        guard path != "-" else { return }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        let thread = Thread { [self] in
            guard let feed = try? PrefetchListFeed.open(path: path) else { return }
            let box = Mutex(0)
            let done = DispatchSemaphore(value: 0)
            Task {
                while let line = await feed.next() {
                    if PrefetchLine.parse(line.text) != nil { box.withLock { $0 += 1 } }
                }
                done.signal()
            }
            done.wait()
            listTotal.withLock { $0 = box.withLock { $0 } }
        }
        thread.start()
    }

    func start() {
        let period = isTerminal ? 0.25 : interval
        task.withLock {
            $0 = Task.detached { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(period))
                    if Task.isCancelled { break }
                    draw(final: false)
                }
            }
        }
    }

    /// Stops redrawing and clears the live line.
    func finish() {
        task.withLock { $0?.cancel() }
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func draw(final: Bool) {
        let line = Self.describe(prefetcher.progress, total: listTotal.withLock { $0 })
        if isTerminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else {
            FileHandle.standardError.write(Data("assetpipe: prefetch: \(line)\n".utf8))
        }
    }

    /// `1200/5000 items, 35.2 MiB at 12.5 MiB/s, 410.3 items/s, 2 failed, ETA 9s`.
    static func describe(_ progress: PrefetchSummary, total: Int?) -> String {
        let done = progress.total + progress.duplicates
        let rate = progress.elapsedSeconds > 0 ? Double(done) / progress.elapsedSeconds : 0
        var parts = [total.map { "\(done)/\($0) items" } ?? "\(done) items"]
        let byteRate = progress.elapsedSeconds > 0 ? Double(progress.bytesDownloaded) / progress.elapsedSeconds : 0
        parts.append("\(CLIOutput.bytes(progress.bytesDownloaded)) at \(CLIOutput.bytes(Int64(byteRate)))/s")
        parts.append(String(format: "%.1f items/s", rate))
        parts.append("\(progress.failed) failed")
        if let total, rate > 0, total >= done {
            parts.append("ETA \(Int((Double(total - done) / rate).rounded(.up)))s")
        }
        return parts.joined(separator: ", ")
    }
}
