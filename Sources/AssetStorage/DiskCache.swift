#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A directory of cache entries, each one file `<sha256(key)>.entry` (the bytes exactly as stored,
/// then the metadata as JSON, then a fixed footer with the sizes and the checksum), sharded into
/// folders by the first two hex digits of the hash; `<sha256(key)>.meta.json` beside it, when there
/// is one, is the entry's metadata as it changed after the store (access counts, a `304`'s headers).
///
/// - A store is one file written under a temporary name and renamed into place: a reader sees the
///   old entry or the new one, never a mix, and a crash leaves at most a temporary file (removed when
///   a cache next opens). A file that does not end in a whole footer, or whose data fails its
///   checksum (XXH3-128; SHA-256 for entries from the two-file layout), is never served; it is removed.
/// - A read records the access in memory only (`touch`); an access recorder writes the counts and
///   times to `.meta.json` files in batches, so a hit costs no write.
/// - An in-memory index of fixed-width records (about 130 bytes an entry), built when the cache opens
///   from the directory listing and the snapshot of the last close, keeps a running byte total;
///   limits on bytes, entries and age are enforced as writes happen (expired entries first, then the
///   least recently used). Opening never evicts, so a tool that opens a cache with other limits
///   (`assetpipe cache stats`) does not shrink it.
/// - Several processes may use one directory: a store is one atomic rename, a removal takes the file
///   aside and puts it back when another process replaced it meanwhile, and a reader re-checks a file
///   that changed since it last verified it. A directory in the two-file layout (`.data` +
///   `.meta.json`) is migrated when it opens, with nothing lost.
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
    /// The cache root, open for `openat`/`fstatat` with short relative paths; replaced when the
    /// directory had to be made again (someone removed it).
    var rootFD: Int32 { rootDescriptor.load(ordering: .acquiring) }
    let rootDescriptor: Atomic<Int32>
    /// Root descriptors replaced while open, closed with the cache (a reader may still use one).
    let retiredDescriptors = Mutex<[Int32]>([])
    let tmpDir: String
    let clock: any CacheClock
    /// Taken by the read-modify-writes of `.meta.json` files, the migration of old entries and the
    /// snapshot; never by a store or a hit.
    let commitLock: CommitLock
    let state: Mutex<State>
    let temporaryCounter = Atomic<Int>(0)
    /// `<pid>-<random>`: the start of this cache's temporary file names, made once (a name costs no
    /// system call).
    let temporaryTag = "\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
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
        do {
            try POSIX.mkdirs(tmpDir)
        } catch where POSIX.refusesWrites(error) && (try? POSIX.stat(root)) != nil {
            // A directory that refuses writes still opens: its entries are served, its stores fail
            // (counted) until it takes writes again, when a store makes `tmp/` (``restoreFolders(shardOf:)``).
        }
        commitLock = try CommitLock(path: root + "/.lock")
        rootDescriptor = Atomic(try POSIX.open(root, O_RDONLY | O_DIRECTORY))
        state = Mutex(State())
        recorder = AccessRecorder(interval: configuration.accessFlushInterval)
        let (scanned, found) = try scanDirectory(previous: nil)
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
        for fd in retiredDescriptors.withLock({ $0 }) { POSIX.close(fd) }
    }

    /// Writes pending access records and the index snapshot, and stops the background flusher.
    /// Further use throws ``StorageError/Code/closed``. Calling it again does nothing.
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

    /// `<root>/ab/<hash><suffix>`.
    func path(_ digest: KeyDigest, _ suffix: String) -> String {
        root + "/" + digest.relativePath(suffix)
    }

    func shardPath(_ digest: KeyDigest) -> String {
        root + "/" + Self.shardNames[digest.shard]
    }

    /// A new unique temporary file path: `tmp/<pid>-<random>-<n>.tmp`.
    func temporaryPath() -> String {
        let n = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(tmpDir)/\(temporaryTag)-\(n).tmp"
    }

    /// A new unique temporary file path in the shard folder of `digest`, `ab/<pid>-<random>-<n>.tmp`:
    /// renamed to its entry within one folder, which locks one directory, where a rename from `tmp/`
    /// locks two and the file system's rename lock (concurrent stores waited on it).
    func temporaryPath(beside digest: KeyDigest) -> String {
        let n = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(root)/\(Self.shardNames[digest.shard])/\(temporaryTag)-\(n).tmp"
    }

    /// Makes the cache's folders again after someone removed them (the root, `tmp/`, a shard) and
    /// reopens the root descriptor when the root itself is new. Called by a write that found a
    /// folder missing; the write is then tried once more.
    func restoreFolders(shardOf digest: KeyDigest?) throws {
        try POSIX.mkdirs(tmpDir)
        if let digest { try POSIX.mkdirs(shardPath(digest)) }
        guard let current = try? POSIX.fstat(rootFD, root), let onDisk = try POSIX.stat(root),
              current.st_ino != onDisk.st_ino || current.st_nlink == 0
        else { return }
        let fresh = try POSIX.open(root, O_RDONLY | O_DIRECTORY)
        let old = rootDescriptor.exchange(fresh, ordering: .acquiringAndReleasing)
        retiredDescriptors.withLock { $0.append(old) }
        try commitLock.reopen()
    }

    /// Whether ``close()`` has been called.
    public var isOpen: Bool { !isClosed.load(ordering: .acquiring) }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw StorageError(.closed, "the cache is closed") }
    }

    static func validate(key: String) throws {
        guard !key.isEmpty else { throw StorageError(.invalidArgument, "an empty cache key") }
    }

    /// The shard folder names: `00` ... `ff`.
    static let shardNames: [String] = (0..<256).map { i in
        let digits = Array("0123456789abcdef")
        return String([digits[i >> 4], digits[i & 15]])
    }
}
