import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`: standard streams piped, inherited or `/dev/null`,
/// every other descriptor closed in the child, signals at their defaults. ``WorkerPool`` runs its
/// workers with it, and the tests their child processes.
///
/// Neither uses Foundation's `Process` on Linux: its `run()` lists `/proc/self/fd` with a
/// copy of the whole 256-byte `d_name` of each entry, which reads past the end of glibc's directory
/// buffer when the process holds about 1,350 descriptors or more, and the test process then dies of
/// a bad pointer dereference (swift-corelibs-foundation PR #5472, fixed after Swift 6.3.1). A full
/// run of this suite holds up to 2,000 (the service's burst test) while other tests start children.
public final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// A new pipe; this side's end is in ``standardInput``, ``standardOutput`` or ``standardError``.
        case pipe
        /// `/dev/null`.
        case null
        /// The same as this process's.
        case inherit
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// The exit status; for a signal, 128 plus its number (as a shell reports it).
        public var status: Int32 {
            switch self {
            case .exited(let code): return code
            case .signaled(let signal): return 128 + signal
            }
        }
    }

    /// The child's process ID.
    public let pid: pid_t
    /// This side of the child's standard input (nil unless piped); close it to send end-of-file.
    public let standardInput: FileHandle?
    /// This side of the child's standard output (nil unless piped).
    public let standardOutput: FileHandle?
    /// This side of the child's standard error (nil unless piped).
    public let standardError: FileHandle?
    private let ended = Mutex<Termination?>(nil)
    private let reaping = Mutex(())

    /// Starts `executable` (a path, or a name looked up on the PATH) with `arguments`; `environment`
    /// nil passes this process's on.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: Stream = .null, stdout: Stream = .pipe, stderr: Stream = .pipe
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [FileHandle?] = [nil, nil, nil]
        var theirs: [Int32] = []
        defer { for fd in theirs { close(fd) } }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit:
                continue
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe:
                var fds: [Int32] = [-1, -1]
                // close-on-exec at once (`pipe2` is not in Swift's Glibc module); the children other
                // threads start meanwhile do not keep them either, `addclosefrom_np` closes them there
                guard pipe(&fds) == 0 else { throw Self.error("pipe") }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let (child, mine) = target == 0 ? (fds[0], fds[1]) : (fds[1], fds[0])
                theirs.append(child)
                ours[Int(target)] = FileHandle(fileDescriptor: mine, closeOnDealloc: true)
                posix_spawn_file_actions_adddup2(&actions, child, target)  // dup2 clears close-on-exec
            }
        }
        // Everything else this process holds stays out of the child. Descriptors opened without
        // close-on-exec (not the pipes above) would otherwise be inherited; glibc 2.34 and later
        // have `addclosefrom_np`, which Swift's Glibc module does not declare.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        // Signals as a new program expects them: none blocked, every one at its default action. This
        // process ignores some (a signal source of Dispatch needs SIGTERM ignored), and an ignored
        // signal stays ignored across exec.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid = pid_t()
        let result = executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Self.error("posix_spawn \(executable)", code: result) }
        self.pid = pid
        (standardInput, standardOutput, standardError) = (ours[0], ours[1], ours[2])
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    private static func error(_ call: String, code: Int32 = errno) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(code)))"])
    }

    /// Whether the child has not ended yet (a child that has ended but is not reaped counts as ended).
    public var isRunning: Bool {
        if ended.withLock({ $0 }) != nil { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    /// Sends `signal` to the child (nothing once it is reaped).
    public func send(_ signal: Int32) {
        if ended.withLock({ $0 }) == nil { kill(pid, signal) }
    }

    /// Blocks until the child ends and returns how. Call it from a thread of its own in async code
    /// (``wait()`` does), never from the cooperative pool.
    @discardableResult
    public func waitUntilExit() -> Termination {
        reaping.withLock { _ in
            if let termination = ended.withLock({ $0 }) { return termination }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED and its kin are macros that Swift does not import
            let termination: Termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            ended.withLock { $0 = termination }
            return termination
        }
    }

    /// Waits, on a thread of its own, until the child ends.
    @discardableResult
    public func wait() async -> Termination {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitUntilExit()) }.start()
        }
    }

    /// Runs `executable` to its end on the calling thread and returns how it ended and what it wrote.
    /// Its standard output is read first, then its standard error: for children that write little to one of them.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (termination: Termination, stdout: Data, stderr: Data) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        let stdout = child.standardOutput!.readDataToEndOfFile()
        let stderr = child.standardError!.readDataToEndOfFile()
        return (child.waitUntilExit(), stdout, stderr)
    }
}
