import Foundation
import Testing
@testable import AssetStorage

@Suite("CacheIndex: the compact index")
struct CacheIndexTests {
    func record(_ i: Int) -> IndexRecord {
        IndexRecord(
            digest: KeyDigest(key: "k\(i)"), identity: ContentIdentity(high: UInt64(i), low: 0), size: Int64(i),
            created: 0, lastAccess: Double(i), expiration: nil, inode: UInt64(i + 1), metadataLength: 10, kind: .raw)
    }

    /// Random inserts, replacements and removals agree with a Dictionary at every step.
    @Test func agreesWithADictionary() {
        var index = CacheIndex()
        var model: [KeyDigest: Int64] = [:]
        var rng = SystemRandomNumberGenerator()
        for step in 0..<60_000 {
            let i = Int.random(in: 0..<5_000, using: &rng)
            var r = record(i)
            if Bool.random(using: &rng) {
                r.size = Int64(step)
                index.insert(r)
                model[r.digest] = r.size
            } else {
                #expect(index.remove(r.digest)?.size == model.removeValue(forKey: r.digest))
            }
            if step % 5_000 == 0 {
                #expect(index.count == model.count)
                for (digest, size) in model { #expect(index.record(for: digest)?.size == size) }
            }
        }
        var seen = 0
        index.forEach { r in
            seen += 1
            #expect(model[r.digest] == r.size)
        }
        #expect(seen == model.count)
    }

    /// The goal is at most 200 bytes an entry at a million entries; the layout does not depend on
    /// the count, so 200,000 records show it.
    @Test func aRecordAndItsSlotTakeUnder200Bytes() {
        #expect(MemoryLayout<IndexRecord>.stride <= 120)
        var index = CacheIndex()
        for i in 0..<200_000 { index.insert(record(i)) }
        #expect(index.count == 200_000)
        let perEntry = Double(index.memoryFootprint) / 200_000
        #expect(perEntry < 200, "\(perEntry) bytes per entry")
    }
}
