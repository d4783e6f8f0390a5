import AssetStorage
import Foundation
import Testing
@testable import AssetPipeline

@Suite("AssetsManager routes by storage type")
struct AssetsManagerTests {
    func makeManager(_ dir: URL, memory: [AssetKind: CachePolicy]? = nil) async throws -> AssetsManager {
        var config = AssetsManager.Configuration(directory: dir)
        if let memory { config.memory = memory }
        return try await AssetsManager.open(configuration: config)
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("assetpipe-manager-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func memoryOnlyWritesNeverReachTheDisk() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manager = try await makeManager(dir)
        let data = Data(repeating: 1, count: 1000)
        try await manager.writeData(data, forKey: "a", storageType: .lru(.lottie))
        #expect(try await manager.readData(forKey: "a", storageType: .lru(.lottie)) == data)
        // Each kind has its own cache.
        #expect(try await manager.readData(forKey: "a", storageType: .lru(.image)) == nil)
        #expect(try await manager.readData(forKey: "a", storageType: .disk) == nil)
        #expect(manager.currentMemoryUsage == 1000)
        #expect(manager.currentDiskUsage == 0)
        try await manager.removeData(forKey: "a", storageType: .lru(.lottie))
        #expect(try await manager.readData(forKey: "a", storageType: .lru(.lottie)) == nil)
        try await manager.shutdown()
    }

    @Test func diskWritesSurviveARestart() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manager = try await makeManager(dir)
        let data = Data((0..<5000).map { UInt8($0 % 251) })
        try await manager.writeData(data, forKey: "b", storageType: .disk, info: .init(kind: .video))
        #expect(manager.currentMemoryUsage == 0)
        #expect(manager.currentDiskUsage == 5000)
        try await manager.shutdown()

        let again = try await makeManager(dir)
        #expect(try await again.readData(forKey: "b", storageType: .disk) == data)
        #expect(again.diskCache.statistics.perKind[.video]?.entries == 1)
        try await again.removeData(forKey: "b", storageType: .disk)
        #expect(try await again.readData(forKey: "b", storageType: .disk) == nil)
        try await again.shutdown()
    }

    @Test func hybridReadsFillMemoryFromDisk() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try await makeManager(dir)
        let data = Data(repeating: 7, count: 2048)
        try await first.writeData(data, forKey: "c", storageType: .hybrid(.image))
        #expect(first.memoryCache(for: .image).count == 1)
        #expect(first.diskCache.statistics.perKind[.image]?.entries == 1)
        try await first.shutdown()

        let second = try await makeManager(dir)
        #expect(second.memoryCache(for: .image).count == 0)
        #expect(try await second.readData(forKey: "c", storageType: .hybrid(.image)) == data)
        #expect(second.memoryCache(for: .image).count == 1)  // the disk hit filled memory
        let diskHits = second.diskCache.statistics.hits
        #expect(try await second.readData(forKey: "c", storageType: .hybrid(.image)) == data)
        #expect(second.diskCache.statistics.hits == diskHits)  // served from memory
        try await second.removeData(forKey: "c", storageType: .hybrid(.image))
        #expect(second.memoryCache(for: .image).count == 0)
        #expect(try await second.readData(forKey: "c", storageType: .disk) == nil)
        try await second.shutdown()
    }

    @Test func objectsAndCapacities() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let memory: [AssetKind: CachePolicy] = [
            .image: CachePolicy(maxSize: 1000, maxCount: 10),
            .lottie: CachePolicy(maxSize: 500, maxCount: 10),
        ]
        let manager = try await makeManager(dir, memory: memory)
        struct Decoded: Sendable, Equatable { var width: Int }
        #expect(manager.setObject(Decoded(width: 3), forKey: "img", kind: .image, cost: 400))
        #expect(!manager.setObject(Decoded(width: 4), forKey: "huge", kind: .lottie, cost: 501))
        #expect(manager.object(Decoded.self, forKey: "img", kind: .image) == Decoded(width: 3))
        #expect(manager.object(String.self, forKey: "img", kind: .image) == nil)
        #expect(try await manager.readData(forKey: "img", storageType: .lru(.image)) == nil)  // not bytes
        #expect(manager.currentMemoryUsage == 400)
        // Kinds without a policy get the default; the capacity is the sum of the limits.
        let defaults = CachePolicy.default.maxSize * 2
        #expect(manager.memoryCapacity == 1500 + defaults)
        #expect(manager.diskCapacity == 1 << 30)
        manager.trimMemory(toFraction: 0)
        #expect(manager.currentMemoryUsage == 0)
        try await manager.shutdown()
    }
}
