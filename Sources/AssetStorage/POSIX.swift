#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Thin wrappers over the system calls the disk caches use, throwing ``StorageError``.
///
/// Foundation's `Data.write(to:)` fsyncs on Linux and `FileManager` costs 17-45 us a file;
/// these stay one call each so that a cache hit is as cheap as a raw open/read/close.
enum POSIX {
    static func error(_ what: String, _ path: String, _ code: Int32 = errno) -> StorageError {
        StorageError(.io, "\(what) \(path): \(String(cString: strerror(code)))", errno: code)
    }

    /// Whether `error` says the file system refuses to be written here (a read-only mount, no write
    /// permission, a folder that cannot be made): a cache opens anyway and serves what it holds.
    static func refusesWrites(_ error: any Error) -> Bool {
        guard let error = error as? StorageError, let code = error.errno else { return false }
        return code == EROFS || code == EACCES || code == EPERM || code == ENOENT
    }

    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) throws -> Int32 {
        while true {
            let fd = path.withCString { Glibc.open($0, flags | O_CLOEXEC, mode) }
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw error("open", path)
        }
    }

    /// Opens for reading; `nil` when the file does not exist.
    static func openIfExists(_ path: String, _ flags: Int32 = O_RDONLY) throws -> Int32? {
        while true {
            let fd = path.withCString { Glibc.open($0, flags | O_CLOEXEC) }
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw error("open", path)
        }
    }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Opens `relative` under the directory `dirfd` for reading; `nil` when it does not exist.
    /// Relative opens skip the walk of the cache root's path, which costs microseconds a call.
    static func openAt(_ dirfd: Int32, _ relative: UnsafePointer<CChar>, _ flags: Int32 = O_RDONLY) throws -> Int32? {
        while true {
            let fd = Glibc.openat(dirfd, relative, flags | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw error("open", String(cString: relative))
        }
    }

    /// `fstatat` of `relative` under `dirfd`; `nil` when it does not exist.
    static func statAt(_ dirfd: Int32, _ relative: UnsafePointer<CChar>) throws -> Glibc.stat? {
        var st = Glibc.stat()
        if fstatat(dirfd, relative, &st, 0) == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw error("stat", String(cString: relative))
    }

    /// A small whole file under `dirfd` in one `read` into `buffer` (`nil` when it does not
    /// exist; `limit` bounds it).
    static func readSmallFile(_ dirfd: Int32, _ relative: UnsafePointer<CChar>, limit: Int) throws -> [UInt8]? {
        guard let fd = try openAt(dirfd, relative) else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count < limit else {
                    throw StorageError(.corrupt, "\(String(cString: relative)) is more than the \(limit) bytes allowed")
                }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, limit - bytes.count)))
            }
            let want = bytes.count - count
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, want) }
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", String(cString: relative))
            }
            if n == 0 { break }
            count += n
            // A regular file's short read is its end: no second call to learn it.
            if n < want { break }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    static func fstat(_ fd: Int32, _ path: String) throws -> Glibc.stat {
        var st = Glibc.stat()
        guard Glibc.fstat(fd, &st) == 0 else { throw error("fstat", path) }
        return st
    }

    /// `stat` of a path; `nil` when it does not exist.
    static func stat(_ path: String) throws -> Glibc.stat? {
        var st = Glibc.stat()
        let rc = path.withCString { fstatat(AT_FDCWD, $0, &st, 0) }
        if rc == 0 { return st }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw error("stat", path)
    }

    /// Writes every byte, retrying short writes and EINTR.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, _ path: String) throws {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            offset += n
        }
    }

    /// Writes every byte of the buffers in order (`writev`), retrying short writes and EINTR.
    static func writevAll(_ fd: Int32, _ buffers: [UnsafeRawBufferPointer], _ path: String) throws {
        var pieces = buffers.filter { $0.count > 0 }
        while !pieces.isEmpty {
            let n = pieces.withUnsafeBufferPointer { list -> Int in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: list.count) { iov in
                    for (i, piece) in list.enumerated() {
                        iov[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress), iov_len: piece.count)
                    }
                    return Glibc.writev(fd, iov.baseAddress, Int32(list.count))
                }
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            var done = n
            while let first = pieces.first, done >= first.count {
                done -= first.count
                pieces.removeFirst()
            }
            if done > 0 { pieces[0] = UnsafeRawBufferPointer(rebasing: pieces[0][done...]) }
        }
    }

    /// Writes every byte at `offset` (`pwrite`), retrying short writes and EINTR.
    static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, _ path: String) throws {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            done += n
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many there were (fewer only at
    /// the end of the file).
    static func preadFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, _ path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = Glibc.pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads exactly `count` bytes from the start of the file into `buffer`; returns how many
    /// were there (fewer means the file is shorter than expected).
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, _ path: String) throws -> Int {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.pread(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if n == 0 { break }
            offset += n
        }
        return offset
    }

    /// The whole file, or `nil` when it does not exist. `limit` bounds what is read.
    static func readFile(_ path: String, limit: Int) throws -> [UInt8]? {
        guard let fd = try openIfExists(path) else { return nil }
        defer { close(fd) }
        let st = try fstat(fd, path)
        let size = Int(st.st_size)
        guard size <= limit else {
            throw StorageError(.corrupt, "\(path) is \(size) bytes, more than the \(limit) allowed")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let got = try bytes.withUnsafeMutableBytes { try readFully(fd, into: $0, path) }
        if got < size { bytes.removeLast(size - got) }
        return bytes
    }

    static func rename(_ from: String, _ to: String) throws {
        let rc = from.withCString { f in to.withCString { t in Glibc.rename(f, t) } }
        guard rc == 0 else { throw error("rename to \(to)", from) }
    }

    /// A second name for a file; false when `to` exists already.
    @discardableResult
    static func link(_ from: String, _ to: String) throws -> Bool {
        let rc = from.withCString { f in to.withCString { t in Glibc.link(f, t) } }
        if rc == 0 { return true }
        if errno == EEXIST { return false }
        throw error("link to \(to)", from)
    }

    /// Removes a file; a missing file is not an error. Returns whether something was removed.
    @discardableResult
    static func unlink(_ path: String) throws -> Bool {
        if path.withCString({ Glibc.unlink($0) }) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("unlink", path)
    }

    static func mkdirs(_ path: String) throws {
        if (try? stat(path)) != nil { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try mkdirs(parent) }
        let rc = path.withCString { Glibc.mkdir($0, 0o755) }
        guard rc == 0 || errno == EEXIST else { throw error("mkdir", path) }
    }

    static func fsync(_ fd: Int32, _ path: String) throws {
        guard Glibc.fsync(fd) == 0 else { throw error("fsync", path) }
    }

    /// Names in a directory (no `.`/`..`); empty when it does not exist.
    static func listDirectory(_ path: String) throws -> [String] {
        guard let dir = path.withCString({ opendir($0) }) else {
            if errno == ENOENT { return [] }
            throw error("opendir", path)
        }
        defer { closedir(dir) }
        var names: [String] = []
        // The name is read in place: a record from readdir can be shorter than `dirent` (its
        // length is the name's), so copying `d_name` whole may read past the end of the buffer.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names
    }

    static func processIsAlive(_ pid: Int32) -> Bool {
        if pid <= 0 { return false }
        return Glibc.kill(pid, 0) == 0 || errno == EPERM
    }
}

extension stat {
    /// Nanoseconds since the epoch of the last modification.
    var modificationNanos: Int64 { Int64(st_mtim.tv_sec) * 1_000_000_000 + Int64(st_mtim.tv_nsec) }
}
