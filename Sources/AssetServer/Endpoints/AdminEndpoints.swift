import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes

/// `GET /v1/cache/stats`, and the admin endpoints `POST /v1/cache/prune` and
/// `POST /v1/cache/purge?url=U`, which need `Authorization: Bearer TOKEN` with the configured admin
/// token (no token configured: they answer 403 `admin_disabled`).
struct AdminEndpoints: Sendable {
    let context: ServerContext

    /// Checks the bearer token, in constant time.
    func authorize(_ incoming: IncomingRequest) throws {
        guard let token = context.configuration.adminToken, !token.isEmpty else { throw AssetServerError.adminDisabled }
        guard let value = incoming.headers[.authorization], value.count > 7, value.prefix(7).lowercased() == "bearer " else {
            throw AssetServerError.unauthorized
        }
        let given = Array(value.dropFirst(7).trimmingSpaces.utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        guard difference == 0 else { throw AssetServerError.unauthorized }
    }

    func stats() async throws -> Reply {
        let manager = context.manager
        let (disk, chunks) = (manager.diskCache, manager.chunkStore)
        let (diskStats, chunkStats) = try await manager.runIO { (disk.statistics, chunks.statistics) }
        var perKind: [(String, CompactJSON)] = []
        for kind in AssetKind.allCases {
            guard let totals = diskStats.perKind[kind] else { continue }
            perKind.append((kind.rawValue, .object([("entries", .number(Double(totals.entries))), ("bytes", .number(Double(totals.bytes)))])))
        }
        var memory: [(String, CompactJSON)] = []
        for kind in AssetKind.allCases {
            let stats = manager.memoryCache(for: kind).statistics
            memory.append((kind.rawValue, .object([
                ("entries", .number(Double(stats.count))), ("bytes", .number(Double(stats.totalCost))),
                ("hits", .number(Double(stats.hits))), ("misses", .number(Double(stats.misses))),
                ("evictions", .number(Double(stats.evictions))),
            ])))
        }
        return .json(.object([
            ("entries", .number(Double(diskStats.entries))),
            ("bytes", .number(Double(diskStats.bytes))),
            ("capacity", .number(Double(diskStats.capacity))),
            ("perKind", .object(perKind)),
            ("hits", .number(Double(diskStats.hits))),
            ("misses", .number(Double(diskStats.misses))),
            ("evictions", .number(Double(diskStats.evictions))),
            ("chunks", .object([
                ("resources", .number(Double(chunkStats.resources))), ("chunks", .number(Double(chunkStats.chunks))),
                ("bytes", .number(Double(chunkStats.bytes))), ("evictedChunks", .number(Double(chunkStats.evictedChunks))),
            ])),
            ("memory", .object([
                ("bytes", .number(Double(manager.currentMemoryUsage))), ("capacity", .number(Double(manager.memoryCapacity))),
                ("perKind", .object(memory)),
            ])),
        ]))
    }

    /// Prunes the disk cache to `maxSize` bytes, `maxCount` entries and `maxAge` seconds (each
    /// optional; without any, to the cache's own limits), expired entries first.
    func prune(_ incoming: IncomingRequest) async throws -> Reply {
        let maxBytes = try incoming.positiveInt("maxSize").map(Int64.init)
        let maxCount = try incoming.positiveInt("maxCount")
        let maxAge = try incoming.positiveInt("maxAge").map(TimeInterval.init)
        let disk = context.manager.diskCache
        let report = try await context.manager.runIO { try disk.prune(maxBytes: maxBytes, maxCount: maxCount, maxAge: maxAge) }
        return .json(.object([("removedEntries", .number(Double(report.entries))), ("removedBytes", .number(Double(report.bytes)))]))
    }

    /// Removes everything kept for a URL: the disk cache entry, its chunks, its hot copy and the
    /// decoded image or parsed animation memoized for it (with default options).
    func purge(_ incoming: IncomingRequest) async throws -> Reply {
        let url = try incoming.requiredParameter("url")
        let key = AssetLoader.defaultCacheKey(for: url)
        let manager = context.manager
        let (disk, chunks) = (manager.diskCache, manager.chunkStore)
        let (fromDisk, fromChunks) = try await manager.runIO { (try disk.remove(key: key), try chunks.removeResource(forKey: key)) }
        context.dropHotCopies(cacheKey: key)
        for kind in AssetKind.allCases { manager.memoryCache(for: kind).removeValue(forKey: key) }
        return .json(.object([
            ("url", .string(url)), ("key", .string(key)),
            ("removedFromDisk", .bool(fromDisk)), ("removedChunks", .bool(fromChunks)),
        ]))
    }
}
