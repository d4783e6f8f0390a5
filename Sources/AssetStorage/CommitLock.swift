#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The lock that every change to a cache directory's committed state is made under: an
/// in-process mutex (threads share one open file description, so `flock` alone would not
/// exclude them) plus an advisory `flock` on `<directory>/.lock` for other processes.
///
/// Held for the read-modify-write of a `.meta.json` (flushed accesses, a revalidation) and for the
/// migration of two-file entries; never by a store, a removal or a hit.
final class CommitLock: Sendable {
    private let fd: Mutex<Int32>
    let path: String

    init(path: String) throws {
        self.path = path
        fd = Mutex(try POSIX.open(path, O_RDWR | O_CREAT, 0o644))
    }

    func withLock<T>(_ body: () throws -> T) throws -> T {
        try fd.withLock { fd in
            guard fd >= 0 else { throw StorageError(.closed, "the cache is closed") }
            while flock(fd, LOCK_EX) != 0 {
                if errno == EINTR { continue }
                throw POSIX.error("flock", path)
            }
            defer { _ = flock(fd, LOCK_UN) }
            return try body()
        }
    }

    /// Opens the lock file again (the directory was made anew after someone removed it).
    func reopen() throws {
        let fresh = try POSIX.open(path, O_RDWR | O_CREAT, 0o644)
        fd.withLock { fd in
            if fd >= 0 { POSIX.close(fd) }
            fd = fresh
        }
    }

    func close() {
        fd.withLock { fd in
            if fd >= 0 { POSIX.close(fd) }
            fd = -1
        }
    }

    deinit { close() }
}
