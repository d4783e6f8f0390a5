import Foundation

extension DiskCache {
    /// What ``verify()`` found.
    public struct VerifyReport: Sendable, Equatable {
        /// Entries whose data was re-read.
        public var checked = 0
        /// Entries whose file was missing, not whole, or whose data failed its checksum.
        public var corrupt = 0
        /// Corrupt entries removed (all of them, unless another process replaced one meanwhile).
        public var removed = 0
        /// One line per corrupt entry: its key (its hash when the key cannot be read) and what was wrong.
        public var problems: [String] = []
    }

    /// Re-reads every entry's data and checks its footer, metadata and checksum; removes the entries
    /// that fail. Entries another process stores meanwhile may be missed.
    public func verify() throws -> VerifyReport {
        try checkOpen()
        var report = VerifyReport()
        let records = state.withLock { $0.index.filter { _ in true } }
        for record in records {
            report.checked += 1
            var problem: String?
            var missing = false
            var name = record.digest.hex
            var inode = record.inode
            if let (fd, stamp) = try openEntry(record.digest) {
                defer { POSIX.close(fd) }
                inode = stamp.inode
                if let footer = try Self.readFooter(fd: fd, fileSize: stamp.size) {
                    let meta = try Self.readEmbeddedMetadata(fd: fd, footer: footer)
                    if let meta { name = meta.key }
                    if meta == nil || KeyDigest(key: meta!.key) != record.digest {
                        problem = "metadata unreadable"
                    } else if try checksum(fd: fd, size: footer.dataSize, algorithm: footer.checksum.algorithm) != footer.checksum {
                        problem = "checksum mismatch"
                    } else {
                        _ = state.withLock { state in
                            state.index.update(record.digest) { r in
                                if r.identity == footer.checksum.identity { r.markVerified(stamp) }
                            }
                        }
                    }
                } else {
                    problem = "not whole (size \(stamp.size), no valid footer)"
                }
            } else {
                problem = "entry file missing"
                missing = true
            }
            if let problem {
                report.corrupt += 1
                report.problems.append("\(name): \(problem)")
                if missing {
                    // Nothing left on disk: dropping it from the index is the whole removal.
                    forget(record.digest, miss: false)
                    report.removed += 1
                } else if try removeCorrupt(record.digest, inode: inode) {
                    report.removed += 1
                }
            }
        }
        return report
    }
}
