#if canImport(Glibc)
import Glibc
#endif

/// A file written in pieces that appears at its path only once it is complete: the bytes go to a
/// temporary file beside it, which ``commit()`` renames into place and which is removed when the
/// value goes away uncommitted. A path that exists and is not a regular file (`/dev/null`, a
/// pipe) is written directly, and left alone on failure.
final class OutputFile {
    let path: String
    private let temporaryPath: String?
    private var descriptor: Int32

    /// Opens the file for writing; the temporary file is created with mode 0666 less the umask.
    init(path: String) throws {
        self.path = path
        var status = stat()
        let special = stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG
        temporaryPath = special ? nil : "\(path).\(getpid()).tmp"
        let target = temporaryPath ?? path
        descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw CLIFailure(code: "io", message: "cannot open \(target) for writing: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if let temporaryPath, !committed { unlink(temporaryPath) }
    }

    private var committed = false

    /// Writes all of `bytes`, retrying short writes and interruptions.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CLIFailure(code: "io", message: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Closes the file and moves it into place.
    func commit() throws {
        let result = close(descriptor)
        descriptor = -1
        guard result == 0 else {
            throw CLIFailure(code: "io", message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if let temporaryPath, rename(temporaryPath, path) != 0 {
            throw CLIFailure(code: "io", message: "cannot rename \(temporaryPath) to \(path): \(String(cString: strerror(errno)))")
        }
        committed = true
    }
}
