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
///
/// A directory that refuses writes (a read-only mount, no write permission) still opens: an
/// existing lock file is opened for reading (`flock` needs no more), and a missing one is made at
/// the first use that finds the directory writable again; until then that use throws, as the
/// write it guards would.
final class CommitLock: Sendable {
    /// The lock file's descriptor; ``closed`` after ``close()``, ``unavailable`` while the
    /// directory refuses to create it.
    private let fd: Mutex<Int32>
    private static let closed: Int32 = -1
    private static let unavailable: Int32 = -2
    let path: String

    init(path: String) throws {
        self.path = path
        fd = Mutex(try Self.openLockFile(path) ?? Self.unavailable)
    }

    /// The lock file opened (made when missing); nil when the directory refuses to make it.
    private static func openLockFile(_ path: String) throws -> Int32? {
        do {
            return try POSIX.open(path, O_RDWR | O_CREAT, 0o644)
        } catch where POSIX.refusesWrites(error) {
            return try POSIX.openIfExists(path)
        }
    }

    func withLock<T>(_ body: () throws -> T) throws -> T {
        try fd.withLock { fd in
            guard fd != Self.closed else { throw StorageError(.closed, "the cache is closed") }
            if fd == Self.unavailable {
                fd = try POSIX.open(path, O_RDWR | O_CREAT, 0o644)
            }
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
        let fresh = try Self.openLockFile(path) ?? Self.unavailable
        fd.withLock { fd in
            if fd >= 0 { POSIX.close(fd) }
            if fd == Self.closed {
                if fresh >= 0 { POSIX.close(fresh) }
            } else {
                fd = fresh
            }
        }
    }

    func close() {
        fd.withLock { fd in
            if fd >= 0 { POSIX.close(fd) }
            fd = Self.closed
        }
    }

    deinit { close() }
}
