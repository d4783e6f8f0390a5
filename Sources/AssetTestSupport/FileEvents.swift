import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Waits for a file to appear, by inotify: for tests whose event is a file that another thread or
/// process writes (a timer's flush), instead of polling for it.
public enum FileEvents {
    /// Returns true once a file named `name` in `directory` has been written and closed or renamed
    /// into place (at once when it already exists and `satisfied` holds), and each time re-checks
    /// `satisfied`; false after `timeout` seconds. Blocks a thread of its own, not the caller's.
    public static func waitForFile(
        named name: String, in directory: String, timeout: Double,
        until satisfied: @escaping @Sendable () -> Bool = { true }
    ) async -> Bool {
        await onOwnThread {
            let fd = inotify_init1(Int32(IN_CLOEXEC))
            guard fd >= 0 else { return false }
            defer { close(fd) }
            guard inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) >= 0 else { return false }
            // watched first, then looked at: a file written in between is seen either way
            if FileManager.default.fileExists(atPath: directory + "/" + name), satisfied() { return true }
            let deadline = Date().addingTimeInterval(timeout)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let left = Int32(deadline.timeIntervalSinceNow * 1000)
                guard left > 0 else { return false }
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, left) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { continue }
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then `len` bytes of name
                var offset = 0
                var named = false
                while offset + 16 <= n {
                    let length = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                    let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + length)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == name { named = true }
                    offset += 16 + length
                }
                if named, satisfied() { return true }
            }
        }
    }
}
