#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file on disk: any write, truncation or replacement of the
/// file changes at least one of these (the change time is left out on purpose: a rename changes
/// it, and the stamp is taken before the commit's rename). A data file whose stamp equals the one recorded when its
/// checksum was last verified is served without hashing it again.
struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    init(device: UInt64, inode: UInt64, size: Int64, modified: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
    }

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = st.modificationNanos
    }
}
