#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Large resources kept as fixed-size chunks on disk, for byte-range reads (video).
///
/// Layout of the directory (by default `chunks/` in the cache directory):
/// - `<sha256(key)>/record.json`: the resource's ``ChunkRecord``, the commit record;
/// - `<sha256(key)>/<generation>-<index>.chunk`: one chunk of one version;
/// - `tmp/`: chunks and records being written; `.lock` and `.generation`.
///
/// - A chunk is written to a temporary file and renamed into place; only then does the record
///   claim it (the record is replaced by a rename too). Eviction unclaims before it deletes. A
///   crash at any point leaves whole claimed chunks plus orphans, which opening removes.
/// - A byte budget (``Configuration/maxBytes``) for all chunks of all resources is enforced on
///   every write by evicting the least recently used chunks; a chunk being read in this process
///   is pinned and never evicted (another process's reader keeps its open file, which Linux keeps
///   readable after an unlink).
/// - Several processes may share a directory: every change is made under an advisory lock and
///   bumps the counter in `.generation`; a process that sees the counter move re-reads the
///   records that changed before it decides anything.
/// - Reads record access times in memory; they reach the record files with the next write of
///   that record, ``flush()`` or ``close()``.
/// - Each claimed chunk carries its SHA-256 in the record; ``verify()`` re-reads every chunk
///   against it and drops the ones that fail, ``prune(maxBytes:maxAge:)`` trims by age and size.
///
/// All methods block on file I/O: call them from a thread that may block (the `AssetsManager`
/// runs them on its I/O thread pool).
public final class ChunkStore: Sendable {
    /// The directory, chunk size and budget the store was opened with.
    public let configuration: Configuration
    let root: String
    let tmpDir: String
    let lock: CommitLock
    /// `.generation`, open for reading and writing; opened for reading only (or not at all, -1)
    /// while the directory refuses writes, and again for writing by the first bump that finds it
    /// writable.
    let counter: Mutex<Int32>
    let state: Mutex<State>
    let temporaryCounter = Atomic<Int>(0)

    /// A chunk of a version, as pins and evictions name it.
    struct ChunkID: Hashable {
        var hash: String
        var generation: UInt64
        var index: Int
    }

    struct Resource {
        var record: ChunkRecord
        var stamp: FileStamp?
        /// Access times changed in memory since the record file was written.
        var accessDirty = false
    }

    struct State {
        var resources: [String: Resource] = [:]
        /// The directory's change counter as last seen (`nil`: never read).
        var seenCounter: UInt64?
        var pins: [ChunkID: Int] = [:]
        var closed = false
        var evictedChunks = 0
        /// Files and claims that opening removed (what crashed writers or damage left).
        var repairedAtOpen = 0
        var totalBytes: Int64 { resources.values.reduce(0) { $0 + $1.record.presentBytes } }
    }

    /// Opens (creating when missing) the chunk directory, removes what crashed writers left
    /// (temporary files, unclaimed chunks, claims of missing or wrong-sized chunks) and reads
    /// the records.
    public init(configuration: Configuration) throws {
        guard configuration.chunkSize > 0, configuration.maxBytes >= 0 else {
            throw StorageError(.invalidArgument, "the chunk size must be positive and the budget not negative")
        }
        self.configuration = configuration
        root = configuration.directory.standardizedFileURL.path
        tmpDir = root + "/tmp"
        do {
            try POSIX.mkdirs(tmpDir)
        } catch where POSIX.refusesWrites(error) {
            // A directory that refuses writes still opens (see the repair below).
        }
        lock = try CommitLock(path: root + "/.lock")
        let counterPath = root + "/.generation"
        do {
            counter = Mutex(try POSIX.open(counterPath, O_RDWR | O_CREAT, 0o644))
        } catch where POSIX.refusesWrites(error) {
            counter = Mutex(try POSIX.openIfExists(counterPath) ?? -1)
        }
        state = Mutex(State())
        do {
            try lock.withLock {
                try repairDirectory()
                state.withLock { $0.seenCounter = nil }
                try syncLocked()
            }
        } catch where POSIX.refusesWrites(error) {
            // A read-only directory (or one whose folder cannot be made): nothing can be repaired,
            // what is there is read as it is; writes fail (and are counted by their callers) until
            // the directory takes them again.
            state.withLock { $0.seenCounter = nil }
            try syncLocked()
        }
    }

    /// Opens the chunk store in `directory` with default limits.
    public convenience init(directory: URL) throws {
        try self.init(configuration: Configuration(directory: directory))
    }

    deinit {
        close()
        counter.withLock { if $0 >= 0 { POSIX.close($0) } }
    }

    /// Writes pending access times; further use throws ``StorageError/Code/closed``.
    public func close() {
        guard state.withLock({ s -> Bool in defer { s.closed = true }; return !s.closed }) else { return }
        try? writeDirtyRecords(force: true)
        lock.close()
    }

    // MARK: paths and names

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    func resourceDirectory(_ hash: String) -> String { "\(root)/\(hash)" }
    func recordPath(_ hash: String) -> String { "\(root)/\(hash)/record.json" }
    func chunkPath(_ id: ChunkID) -> String { "\(root)/\(id.hash)/\(Self.hex(id.generation))-\(id.index).chunk" }

    func temporaryPath() -> String {
        let n = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(tmpDir)/\(getpid())-\(n)-\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw StorageError(.closed, "the chunk store is closed") }
    }

    // MARK: the change counter

    /// The directory's change counter (0 when never written).
    func readCounter() -> UInt64 {
        var value: UInt64 = 0
        let n = counter.withLock { fd in withUnsafeMutableBytes(of: &value) { pread(fd, $0.baseAddress, 8, 0) } }
        return n == 8 ? UInt64(littleEndian: value) : 0
    }

    /// Bumps the counter after a change; call under the lock, after ``syncLocked()``.
    func bumpCounter() throws {
        var next = (readCounter() &+ 1).littleEndian
        let n = try counter.withLock { fd in
            var n = withUnsafeBytes(of: &next) { pwrite(fd, $0.baseAddress, 8, 0) }
            if n < 0 && (errno == EBADF || fd < 0) {
                // Opened for reading while the directory refused writes: open it for writing now.
                let fresh = try POSIX.open(root + "/.generation", O_RDWR | O_CREAT, 0o644)
                if fd >= 0 { POSIX.close(fd) }
                fd = fresh
                n = withUnsafeBytes(of: &next) { pwrite(fd, $0.baseAddress, 8, 0) }
            }
            return n
        }
        guard n == 8 else { throw POSIX.error("write", root + "/.generation") }
        state.withLock { $0.seenCounter = UInt64(littleEndian: next) }
    }

    /// Re-reads the records (under the lock) when another process changed the directory since
    /// we last looked: one `pread` when nothing changed.
    func syncIfChanged() throws {
        if state.withLock({ $0.seenCounter }) == readCounter() { return }
        try lock.withLock { try syncLocked() }
    }

    /// ``syncIfChanged()`` for callers holding the lock.
    func syncLocked() throws {
        let counter = readCounter()
        if state.withLock({ $0.seenCounter }) == counter { return }
        try reloadRecords(counter: counter)
    }

    /// Reads every record whose file changed; keeps in-memory access times that are newer.
    private func reloadRecords(counter: UInt64) throws {
        let known = state.withLock { $0.resources }
        var fresh: [String: Resource] = [:]
        for name in try POSIX.listDirectory(root) where Self.isResourceName(name) {
            guard let st = try POSIX.stat(recordPath(name)) else { continue }
            let stamp = FileStamp(st)
            if let old = known[name], old.stamp == stamp {
                fresh[name] = old
                continue
            }
            guard let bytes = try POSIX.readFile(recordPath(name), limit: ChunkRecord.maxFileSize),
                  var record = ChunkRecord(jsonBytes: bytes), record.chunkSize == configuration.chunkSize
            else { continue }
            var dirty = false
            if let old = known[name], old.record.generation == record.generation {
                for (index, chunk) in old.record.chunks where (record.chunks[index]?.lastAccess ?? .infinity) < chunk.lastAccess {
                    record.chunks[index]?.lastAccess = chunk.lastAccess
                    dirty = true
                }
            }
            fresh[name] = Resource(record: record, stamp: stamp, accessDirty: dirty)
        }
        state.withLock {
            $0.resources = fresh
            $0.seenCounter = counter
        }
    }

    static func isResourceName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    // MARK: record files

    /// Replaces `hash`'s record file by a rename and remembers its stamp. Call under the lock.
    func writeRecordLocked(_ record: ChunkRecord, hash: String) throws {
        let temp = temporaryPath()
        let fd = try POSIX.open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        let stamp: FileStamp
        do {
            defer { POSIX.close(fd) }
            try record.jsonBytes.withUnsafeBytes { try POSIX.writeAll(fd, $0, temp) }
            stamp = FileStamp(try POSIX.fstat(fd, temp))
            try POSIX.mkdirs(resourceDirectory(hash))
            try POSIX.rename(temp, recordPath(hash))
        } catch {
            _ = try? POSIX.unlink(temp)
            throw error
        }
        state.withLock { $0.resources[hash] = Resource(record: record, stamp: stamp) }
    }

    /// Writes the records whose access times changed in memory (all of them when `force`).
    func writeDirtyRecords(force: Bool) throws {
        try lock.withLock {
            try syncLocked()
            let dirty = state.withLock { $0.resources.filter { $0.value.accessDirty } }
            guard !dirty.isEmpty || force else { return }
            for (hash, resource) in dirty { try writeRecordLocked(resource.record, hash: hash) }
            if !dirty.isEmpty { try bumpCounter() }
        }
    }

    // MARK: repair at open

    /// Removes temporary files of dead processes, resource folders without a readable record
    /// (or of another chunk size), unclaimed chunk files, and claims of chunks that are missing
    /// or of the wrong size. Call under the lock.
    private func repairDirectory() throws {
        var repaired = 0
        defer { state.withLock { $0.repairedAtOpen = repaired } }
        for name in try POSIX.listDirectory(tmpDir) {
            let pid = Int32(name.prefix { $0 != "-" }) ?? 0
            if !POSIX.processIsAlive(pid) || pid == getpid() {
                try POSIX.unlink(tmpDir + "/" + name)
                repaired += 1
            }
        }
        var changed = false
        for hash in try POSIX.listDirectory(root) where Self.isResourceName(hash) {
            let dir = resourceDirectory(hash)
            let bytes = try POSIX.readFile(recordPath(hash), limit: ChunkRecord.maxFileSize)
            guard let bytes, var record = ChunkRecord(jsonBytes: bytes), record.chunkSize == configuration.chunkSize else {
                try removeFolder(dir)
                changed = true
                repaired += 1
                continue
            }
            let prefix = Self.hex(record.generation) + "-"
            var seen = Set<Int>()
            for file in try POSIX.listDirectory(dir) where file != "record.json" {
                let index = file.hasPrefix(prefix) && file.hasSuffix(".chunk")
                    ? Int(file.dropFirst(prefix.count).dropLast(6)) : nil
                if let index, let claimed = record.chunks[index],
                   let st = try POSIX.stat(dir + "/" + file), Int(st.st_size) == claimed.length {
                    seen.insert(index)
                } else {
                    try POSIX.unlink(dir + "/" + file)
                    repaired += 1
                }
            }
            let missing = record.chunks.keys.filter { !seen.contains($0) }
            repaired += missing.count
            if !missing.isEmpty {
                for index in missing { record.chunks[index] = nil }
                try writeRecordLocked(record, hash: hash)
                changed = true
            }
        }
        if changed { try bumpCounter() }
    }

    /// Removes a resource folder and everything in it.
    func removeFolder(_ dir: String) throws {
        for file in try POSIX.listDirectory(dir) { try POSIX.unlink(dir + "/" + file) }
        if dir.withCString({ rmdir($0) }) != 0 && errno != ENOENT && errno != ENOTEMPTY {
            throw POSIX.error("rmdir", dir)
        }
    }
}
