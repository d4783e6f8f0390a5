#if canImport(Glibc)
import Glibc
#endif

/// Blocking reads and writes of whole messages on a descriptor, with a deadline for reads.
enum DescriptorIO {
    enum Failure: Error {
        /// The other side closed (or the descriptor failed).
        case closed
        /// Nothing whole arrived before the deadline.
        case timedOut
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            offset += written
        }
    }

    /// Exactly `count` bytes, before `deadline` when one is given.
    static func read(_ fd: Int32, count: Int, deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { throw .timedOut }
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 && errno != EINTR { throw .closed }
                if ready <= 0 { continue }
            }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .closed }
            offset += n
        }
        return bytes
    }
}
