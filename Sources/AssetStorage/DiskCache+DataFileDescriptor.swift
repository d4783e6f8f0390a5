#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DiskCache.DataFile {
    /// Where the entry's bytes start in the open file (0: the file holds the data alone).
    public var dataOffset: Int64 { 0 }

    /// A new descriptor of the same open file, owned by the caller (who closes it): for sending the
    /// data with `sendfile` from ``dataOffset``.
    public func duplicateDescriptor() throws -> Int32 {
        let copy = dup(fd)
        guard copy >= 0 else { throw POSIX.error("dup", "a cache data file") }
        return copy
    }
}
