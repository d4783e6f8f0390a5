import Glibc
import DequeModule
import Foundation
import Synchronization

/// Lines of a list read by a thread of its own from a file descriptor (a file or a pipe), handed to
/// async consumers through a bounded buffer: the reader stops while the buffer is full, so memory
/// stays flat however long the list is, and a slow pipe never blocks Swift's cooperative threads.
public final class PrefetchListFeed: Sendable {
    /// A numbered line, without its line break.
    public struct Line: Sendable {
        /// The line's number in the list, from 1 (blank and comment lines counted).
        public var number: Int
        /// The line's text, without the line break; a line over 64 KiB is cut to its first 200 bytes
        /// and `…`.
        public var text: String
    }

    private struct State {
        var buffer = Deque<Line>()
        var waiters = Deque<CheckedContinuation<Line?, Never>>()
        var finished = false
        var stopped = false
        var readError: String?
    }

    private let state: Mutex<State>
    private let space = NSCondition()
    private let capacity: Int
    private let fd: Int32
    private let ownsDescriptor: Bool

    /// Starts reading `fd` at once. With `ownsDescriptor` the feed closes it when it reaches the end.
    public init(fileDescriptor fd: Int32, ownsDescriptor: Bool, capacity: Int = 4_096) {
        self.state = Mutex(State())
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in self.readAll() }
        thread.name = "assetpipe-list"
        thread.start()
    }

    /// A feed of `items`, already in memory: no reader thread, lines numbered from 1 in their order.
    public init(items: [PrefetchItem]) {
        let lines = items.enumerated().map { Line(number: $0.offset + 1, text: $0.element.line) }
        self.state = Mutex(State(buffer: Deque(lines), finished: true))
        self.fd = -1
        self.ownsDescriptor = false
        self.capacity = max(1, lines.count)
    }

    /// Opens the list at `path` (`-` is standard input).
    public static func open(path: String) throws -> PrefetchListFeed {
        if path == "-" { return PrefetchListFeed(fileDescriptor: 0, ownsDescriptor: false) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PrefetchError.unreadableList(path, String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(fd)
            throw PrefetchError.unreadableList(path, "it is a directory")
        }
        return PrefetchListFeed(fileDescriptor: fd, ownsDescriptor: true)
    }

    /// The next line, or nil at the end of the list (or after ``stop()``).
    public func next() async -> Line? {
        if let line = takeNow() { return line }
        return await withCheckedContinuation { continuation in
            let resume: Line?? = state.withLock { state in
                if let line = state.buffer.popFirst() { return .some(line) }
                if state.finished || state.stopped { return .some(nil) }
                state.waiters.append(continuation)
                return nil
            }
            if let resume { continuation.resume(returning: resume) } else { return }
            signalSpace()
        }
    }

    /// An error that ended the reading early, if any.
    public var readError: String? { state.withLock { $0.readError } }

    /// Ends the feed: waiting and later consumers get nil, the reader thread stops at its next line.
    public func stop() {
        let waiters = state.withLock { state -> Deque<CheckedContinuation<Line?, Never>> in
            state.stopped = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        signalSpace()
    }

    private func takeNow() -> Line? {
        let line = state.withLock { $0.buffer.popFirst() }
        if line != nil { signalSpace() }
        return line
    }

    private func signalSpace() {
        space.lock()
        space.signal()
        space.unlock()
    }

    /// Hands `line` to a waiting consumer or buffers it; false once the feed is stopped.
    private func deliver(_ line: Line) -> Bool {
        while true {
            enum Step { case resumed(CheckedContinuation<Line?, Never>), buffered, full, stopped }
            let step: Step = state.withLock { state in
                if state.stopped { return .stopped }
                if let waiter = state.waiters.popFirst() { return .resumed(waiter) }
                if state.buffer.count < capacity {
                    state.buffer.append(line)
                    return .buffered
                }
                return .full
            }
            switch step {
            case .resumed(let waiter):
                waiter.resume(returning: line)
                return true
            case .buffered: return true
            case .stopped: return false
            case .full:
                space.lock()
                if state.withLock({ $0.buffer.count >= capacity && !$0.stopped }) {
                    _ = space.wait(until: Date().addingTimeInterval(0.1))
                }
                space.unlock()
            }
        }
    }

    private func finish(error: String?) {
        if ownsDescriptor { Glibc.close(fd) }
        let waiters = state.withLock { state -> Deque<CheckedContinuation<Line?, Never>> in
            state.finished = true
            state.readError = error
            guard state.buffer.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// The reader thread: splits the input on `\n` (a trailing `\r` is dropped by the parser's trim).
    /// A line longer than ``maxLineBytes`` is delivered cut short (it becomes a malformed item) and
    /// the rest of it skipped, so no line can grow the buffer without bound.
    private func readAll() {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var buffer: [UInt8] = []
        var number = 0
        var skipping = false
        var error: String?
        reading: while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                error = String(cString: strerror(errno))
                break
            }
            if n == 0 { break }
            buffer.append(contentsOf: chunk[0..<n])
            var lineStart = 0
            while let newline = buffer[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                if skipping {
                    skipping = false
                } else {
                    number += 1
                    let text = String(decoding: buffer[lineStart..<newline], as: UTF8.self)
                    guard deliver(Line(number: number, text: text)) else { break reading }
                }
                lineStart = newline + 1
            }
            buffer.removeFirst(lineStart)
            if skipping {
                buffer.removeAll(keepingCapacity: true)
            } else if buffer.count > Self.maxLineBytes {
                number += 1
                let text = String(decoding: buffer.prefix(200), as: UTF8.self) + "…"
                buffer.removeAll(keepingCapacity: true)
                skipping = true
                guard deliver(Line(number: number, text: text)) else { break }
            }
        }
        if !buffer.isEmpty, !skipping, error == nil, !state.withLock({ $0.stopped }) {
            number += 1
            _ = deliver(Line(number: number, text: String(decoding: buffer, as: UTF8.self)))
        }
        finish(error: error)
    }

    /// The longest line kept whole (64 KiB); a longer one becomes a malformed item.
    static let maxLineBytes = 64 << 10
}
