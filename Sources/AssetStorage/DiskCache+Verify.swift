import Foundation

extension DiskCache {
    /// What ``verify()`` found.
    public struct VerifyReport: Sendable, Equatable {
        /// Entries whose data was re-read.
        public var checked = 0
        /// Entries whose data was missing, of the wrong size, or failed its checksum.
        public var corrupt = 0
        /// Corrupt entries removed (all of them, unless another process replaced one meanwhile).
        public var removed = 0
        /// One line per corrupt entry: its key and what was wrong.
        public var problems: [String] = []
    }

    /// Re-reads every entry's data and checks its size and SHA-256 against its metadata; removes
    /// the entries that fail. Entries another process stores meanwhile may be missed.
    public func verify() throws -> VerifyReport {
        try checkOpen()
        var report = VerifyReport()
        let entries = state.withLock { $0.index.map { ($0.key, $0.value) } }
        for (hash, entry) in entries {
            report.checked += 1
            let path = dataPath(hash)
            var problem: String?
            if let fd = try POSIX.openIfExists(path) {
                defer { POSIX.close(fd) }
                let st = try POSIX.fstat(fd, path)
                if Int64(st.st_size) != entry.size {
                    problem = "size \(st.st_size), metadata says \(entry.size)"
                } else if try checksum(fd: fd, size: entry.size, path: path) != entry.checksum {
                    problem = "checksum mismatch"
                } else {
                    state.withLock { state in
                        if state.index[hash]?.checksum == entry.checksum { state.index[hash]?.verified = FileStamp(st) }
                    }
                }
            } else {
                problem = "data file missing"
            }
            if let problem {
                report.corrupt += 1
                report.problems.append("\(entry.key): \(problem)")
                if try removeCorrupt(hash: hash, checksum: entry.checksum) { report.removed += 1 }
            }
        }
        return report
    }
}
