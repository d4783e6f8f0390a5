// A child process for the chunk store's crash and multi-process tests (not a product).
//
//   ChunkStoreWorker write DIR KEYS ROUNDS CHUNK BUDGET        replace and fill resources r-(i % KEYS), ROUNDS * KEYS times
//   ChunkStoreWorker mixed DIR KEYS ROUNDS SEED CHUNK BUDGET   write, read and drop resources shared-(i % KEYS); checks every read
//
// Every version's bytes are self-checking: the record's ETag carries a seed, and byte `o` of the
// resource is `ChunkPattern.byte(seed, o)`, so a reader can tell a whole chunk of that version
// from a torn one or one of another version. Exits 0 when every read was whole, 3 when one was
// not, 2 on bad usage.
import AssetStorage
import Foundation

enum ChunkPattern {
    static func byte(seed: UInt64, offset: Int64) -> UInt8 {
        var x = UInt64(bitPattern: offset) &+ seed &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        x &*= 0xBF58_476D_1CE4_E5B9
        x ^= x >> 32
        return UInt8(truncatingIfNeeded: x)
    }

    static func bytes(seed: UInt64, range: Range<Int64>) -> [UInt8] {
        range.map { byte(seed: seed, offset: $0) }
    }

    static func seed(of record: ChunkRecord) -> UInt64? {
        record.info.eTag.flatMap { UInt64($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
    }
}

/// Stores a new version of `key` (its length a few chunks and a bit) and writes its chunks in
/// a random order.
func writeVersion(_ store: ChunkStore, key: String, seed: UInt64, chunkSize: Int, using rng: inout some RandomNumberGenerator) throws {
    let length = Int64(chunkSize) * Int64.random(in: 1...6, using: &rng) + Int64.random(in: 0..<Int64(chunkSize), using: &rng)
    let record = try store.replaceResource(forKey: key, info: .init(totalLength: length, eTag: "\"\(seed)\""))
    for index in (0..<record.chunkCount!).shuffled(using: &rng) {
        let start = Int64(index) * Int64(chunkSize)
        let bytes = ChunkPattern.bytes(seed: seed, range: start..<min(start + Int64(chunkSize), length))
        try store.writeChunk(forKey: key, generation: record.generation, index: index, bytes: bytes)
    }
}

/// Reads every present chunk of `key`; returns (chunks read, torn ones).
func verify(_ store: ChunkStore, key: String) throws -> (Int, Int) {
    guard let record = try store.record(forKey: key), let seed = ChunkPattern.seed(of: record) else { return (0, 0) }
    var read = 0, torn = 0
    for index in record.chunks.keys {
        guard let data = try store.readChunk(forKey: key, generation: record.generation, index: index) else { continue }
        read += 1
        let start = Int64(index) * Int64(record.chunkSize)
        if [UInt8](data) != ChunkPattern.bytes(seed: seed, range: start..<(start + Int64(data.count))) { torn += 1 }
    }
    return (read, torn)
}

let args = CommandLine.arguments
guard args.count >= 7 else {
    FileHandle.standardError.write(Data("usage: ChunkStoreWorker write DIR KEYS ROUNDS CHUNK BUDGET | mixed DIR KEYS ROUNDS SEED CHUNK BUDGET\n".utf8))
    exit(2)
}
do {
    var rng = SystemRandomNumberGenerator()
    switch args[1] {
    case "write":
        guard let keys = Int(args[3]), let rounds = Int(args[4]), let chunk = Int(args[5]), let budget = Int64(args[6]) else { exit(2) }
        let store = try ChunkStore(configuration: .init(directory: URL(fileURLWithPath: args[2]), chunkSize: chunk, maxBytes: budget))
        for i in 0..<(keys * rounds) {
            try writeVersion(store, key: "r-\(i % keys)", seed: UInt64.random(in: 1...UInt64(Int64.max), using: &rng), chunkSize: chunk, using: &rng)
            FileHandle.standardOutput.write(Data("stored \(i + 1)\n".utf8))  // progress, unbuffered: a test kills on it
        }
        store.close()
        print("wrote \(keys * rounds)")
    case "mixed":
        guard args.count >= 8, let keys = Int(args[3]), let rounds = Int(args[4]), let seed = UInt64(args[5]),
              let chunk = Int(args[6]), let budget = Int64(args[7]) else { exit(2) }
        let store = try ChunkStore(configuration: .init(directory: URL(fileURLWithPath: args[2]), chunkSize: chunk, maxBytes: budget))
        var reads = 0, torn = 0
        for i in 0..<(keys * rounds) {
            let key = "shared-\((i &* 7 &+ Int(seed)) % keys)"
            if i % 4 == 0 {
                try writeVersion(store, key: key, seed: seed &* 1_000_003 &+ UInt64(i), chunkSize: chunk, using: &rng)
            } else if i % 13 == 0 {
                try store.removeResource(forKey: key)
            } else {
                let (r, t) = try verify(store, key: key)
                reads += r
                torn += t
            }
        }
        store.close()
        print("reads \(reads) torn \(torn)")
        exit(torn == 0 ? 0 : 3)
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("ChunkStoreWorker: \(error)\n".utf8))
    exit(1)
}
