#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension ChunkStore {
    /// Drops `key`'s record and every chunk of it. Returns whether there was a record.
    @discardableResult
    public func removeResource(forKey key: String) throws -> Bool {
        try Self.validate(key: key)
        try checkOpen()
        let hash = CacheKeyHash.fileName(for: key)
        return try lock.withLock {
            try syncLocked()
            let existed = try removeLocked(hash: hash)
            if existed { try bumpCounter() }
            return existed
        }
    }

    /// Drops every resource.
    public func removeAll() throws {
        try checkOpen()
        try lock.withLock {
            try syncLocked()
            for hash in try POSIX.listDirectory(root) where Self.isResourceName(hash) {
                try removeLocked(hash: hash)
            }
            try bumpCounter()
        }
    }

    /// Removes the record first (the chunks are then unclaimed), then the chunk files and the
    /// folder. Call under the lock.
    @discardableResult
    func removeLocked(hash: String) throws -> Bool {
        let existed = try POSIX.unlink(recordPath(hash))
        state.withLock { _ = $0.resources.removeValue(forKey: hash) }
        try removeFolder(resourceDirectory(hash))
        return existed
    }
}
