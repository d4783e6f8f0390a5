#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A directory of cache entries, each `<sha256(key)>.data` (the bytes, exactly as stored) and
/// `<sha256(key)>.meta.json` (``CacheMetadata``), sharded into folders by the first two hex
/// digits of the hash.
///
/// - Writes are crash-safe: the data goes to a temporary file that is renamed into place, and
///   the metadata, written last, is the commit record. An entry whose data disagrees with its
///   metadata (size, SHA-256) is never served; it is removed.
/// - A read records the access in memory only (`touch`); an access recorder writes the counts
///   and times to the metadata files in batches, so a hit costs no write.
/// - An in-memory index, built when the cache opens, keeps a running byte total; limits on
///   bytes, entries and age are enforced as writes happen (expired entries first, then the
///   least recently used). Opening never evicts, so a tool that opens a cache with other
///   limits (`assetpipe cache stats`) does not shrink it.
/// - Several processes may use one directory: commits and removals take an advisory lock, and
///   a reader re-checks what another process may have changed.
///
/// All methods block on file I/O: call them from a thread that may block (the `AssetsManager`
/// runs them on its I/O thread pool), not from Swift's cooperative pool.
public final class DiskCache: Sendable {
    /// The directory and limits the cache was opened with.
    public let configuration: Configuration
    /// What opening the directory found and cleaned.
    public var openReport: OpenReport { openReportStore.withLock { $0 } }
    let openReportStore = Mutex(OpenReport())

    let root: String
    /// The cache root, open for `openat`/`fstatat` with short relative paths.
    let rootFD: Int32
    let tmpDir: String
    let clock: any CacheClock
    let commitLock: CommitLock
    let state: Mutex<State>
    let temporaryCounter = Atomic<Int>(0)
    /// Mirrors `state.closed` for ``checkOpen()``, which every call makes: an atomic load instead of
    /// taking the state lock that the hits, the writes and the flusher contend for.
    let isClosed = Atomic<Bool>(false)
    let recorder: AccessRecorder

    /// Opens (creating when missing) the cache directory and builds its index.
    public init(configuration: Configuration) throws {
        guard configuration.maxBytes >= 0, configuration.maxCount >= 0 else {
            throw StorageError(.invalidArgument, "cache limits must not be negative")
        }
        self.configuration = configuration
        root = configuration.directory.standardizedFileURL.path
        tmpDir = root + "/tmp"
        clock = configuration.clock
        try POSIX.mkdirs(tmpDir)
        commitLock = try CommitLock(path: root + "/.lock")
        rootFD = try POSIX.open(root, O_RDONLY | O_DIRECTORY)
        state = Mutex(State())
        recorder = AccessRecorder(interval: configuration.accessFlushInterval)
        let (scanned, found) = try scanDirectory()
        state.withLock { $0 = scanned }
        openReportStore.withLock { $0 = found }
        recorder.start { [weak self] in self?.flushAccesses() }
    }

    /// Opens the cache in `directory` with default limits.
    public convenience init(directory: URL) throws {
        try self.init(configuration: Configuration(directory: directory))
    }

    deinit {
        close()
        POSIX.close(rootFD)
    }

    /// Writes pending access records and stops the background flusher. Further use throws
    /// ``StorageError/Code/closed``. Calling it again does nothing.
    public func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        isClosed.store(true, ordering: .releasing)
        guard wasOpen else { return }
        recorder.stop()
        flushAccesses(force: true)
        writeSnapshot()
        commitLock.close()
    }

    // MARK: paths

    func dataPath(_ hash: String) -> String {
        "\(root)/\(hash.prefix(2))/\(hash).data"
    }

    func metaPath(_ hash: String) -> String {
        "\(root)/\(hash.prefix(2))/\(hash).meta.json"
    }

    /// `ab/<hash>.data`, relative to ``rootFD``.
    func relativeDataPath(_ hash: String) -> String {
        "\(hash.prefix(2))/\(hash).data"
    }

    /// `ab/<hash>.meta.json`, relative to ``rootFD``.
    func relativeMetaPath(_ hash: String) -> String {
        "\(hash.prefix(2))/\(hash).meta.json"
    }

    func shardPath(_ hash: String) -> String {
        "\(root)/\(hash.prefix(2))"
    }

    /// A new unique temporary file path: `<pid>-<n>.tmp`.
    func temporaryPath() -> String {
        let n = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(tmpDir)/\(getpid())-\(n)-\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Whether ``close()`` has been called.
    public var isOpen: Bool { !isClosed.load(ordering: .acquiring) }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw StorageError(.closed, "the cache is closed") }
    }

    static func validate(key: String) throws {
        guard !key.isEmpty else { throw StorageError(.invalidArgument, "an empty cache key") }
    }
}
