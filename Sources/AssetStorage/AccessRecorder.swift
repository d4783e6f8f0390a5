#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Runs a flush on a dedicated thread every `interval` seconds, and at once when asked.
///
/// A dedicated thread, not a task: the flush writes files, and blocking I/O stays off Swift's
/// cooperative pool.
final class AccessRecorder: Sendable {
    private let interval: TimeInterval
    private let condition = NSCondition()
    private let flags = Mutex<(stopped: Bool, wake: Bool, running: Bool)>((false, false, false))
    private let threadID = Mutex<UInt?>(nil)

    init(interval: TimeInterval) {
        self.interval = max(interval, 0.001)
    }

    func start(_ flush: @escaping @Sendable () -> Void) {
        flags.withLock { $0.running = true }
        let thread = Thread { [self] in
            threadID.withLock { $0 = UInt(bitPattern: Int(bitPattern: pthread_self())) }
            while true {
                condition.lock()
                let deadline = Date(timeIntervalSinceNow: interval)
                while !flags.withLock({ $0.stopped || $0.wake }) {
                    if !condition.wait(until: deadline) { break }
                }
                condition.unlock()
                let (stopped, _, _) = flags.withLock { f -> (Bool, Bool, Bool) in
                    f.wake = false
                    return f
                }
                if stopped { break }
                flush()
            }
            flags.withLock { $0.running = false }
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "assetpipe.access-recorder"
        thread.start()
    }

    /// Asks for a flush now (on the recorder's thread).
    func wake() {
        condition.lock()
        flags.withLock { $0.wake = true }
        condition.signal()
        condition.unlock()
    }

    /// Stops the thread and waits for it to finish its current flush.
    func stop() {
        condition.lock()
        flags.withLock { $0.stopped = true }
        if threadID.withLock({ $0 }) == UInt(bitPattern: Int(bitPattern: pthread_self())) {
            // Called from a flush on the recorder's own thread: it ends after this flush.
            condition.unlock()
            return
        }
        condition.broadcast()
        while flags.withLock({ $0.running }) {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        condition.unlock()
    }
}
