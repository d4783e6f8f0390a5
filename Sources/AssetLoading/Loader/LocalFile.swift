#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Blocking reads of local files for `file://` URLs (call on the I/O pool).
enum LocalFile {
    /// The size of the regular file at `path`; ``LoaderError/notFound`` when there is none.
    static func size(path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw LoaderError.notFound.with(message: "no file at \(path) (errno \(errno))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw LoaderError.notFound.with(message: "\(path) is not a regular file")
        }
        return Int64(info.st_size)
    }

    /// The whole file at `path`.
    static func read(path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoaderError.notFound.with(message: "cannot read \(path)")
        }
        return data
    }
}
