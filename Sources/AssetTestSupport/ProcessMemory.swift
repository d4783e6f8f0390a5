import Foundation

/// A process's memory from `/proc/PID/status`, in bytes, and the reset of its peak.
public enum ProcessMemory {
    /// A field of `/proc/PID/status` (`VmRSS`, `VmHWM`) in bytes, of this process when `pid` is nil;
    /// nil when it cannot be read (the process is gone).
    public static func value(_ field: String, pid: Int32? = nil) -> Int? {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return digits.first.map { $0 * 1024 }
        }
        return nil
    }

    /// Resets this process's peak resident size (VmHWM) to the current one; false if the kernel refused.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

}
