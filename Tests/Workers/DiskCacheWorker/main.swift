// A child process for the disk cache's crash and multi-process tests (not a product).
//
//   DiskCacheWorker write DIR PREFIX KEYS ROUNDS   store entries KEY = PREFIX-(i % KEYS), ROUNDS * KEYS writes
//   DiskCacheWorker mixed DIR KEYS ROUNDS SEED     store and read keys shared-(i % KEYS); checks every read
//
// Every value is self-checking: its first 8 bytes are a seed, the rest a pattern derived from
// it, so a reader can tell a whole value from a torn or mixed one without knowing the writer.
// Exits 0 when every read was whole, 3 when one was not, 2 on bad usage.
import AssetStorage
import Foundation

func value(seed: UInt64) -> [UInt8] {
    var state = seed | 1
    let size = 8 + Int(seed % 20_000)
    var bytes = [UInt8](repeating: 0, count: size)
    withUnsafeBytes(of: seed.littleEndian) { for i in 0..<8 { bytes[i] = $0[i] } }
    for i in 8..<size {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        bytes[i] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}

func isWhole(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 8 else { return false }
    let seed = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    return value(seed: UInt64(littleEndian: seed)) == bytes
}

let args = CommandLine.arguments
guard args.count >= 5 else {
    FileHandle.standardError.write("usage: DiskCacheWorker write DIR PREFIX KEYS ROUNDS | mixed DIR KEYS ROUNDS SEED\n".data(using: .utf8)!)
    exit(2)
}
let directory = URL(fileURLWithPath: args[2])
do {
    let cache = try DiskCache(configuration: .init(directory: directory, accessFlushCount: 64))
    var rng = SystemRandomNumberGenerator()
    switch args[1] {
    case "write":
        let prefix = args[3]
        guard let keys = Int(args[4]), let rounds = Int(args.count > 5 ? args[5] : "1") else { exit(2) }
        for i in 0..<(keys * rounds) {
            try cache.store(value(seed: UInt64.random(in: 0...UInt64.max, using: &rng)), forKey: "\(prefix)-\(i % keys)")
            FileHandle.standardOutput.write(Data("stored \(i + 1)\n".utf8))  // progress, unbuffered: a test kills on it
        }
        cache.close()
        print("wrote \(keys * rounds)")
    case "mixed":
        guard let keys = Int(args[3]), let rounds = Int(args[4]), args.count > 5, let seed = UInt64(args[5]) else { exit(2) }
        var reads = 0, hits = 0, torn = 0
        for i in 0..<(keys * rounds) {
            let key = "shared-\((i &* 7 &+ Int(seed)) % keys)"
            if i % 3 == 0 {
                try cache.store(value(seed: seed &* 1_000_003 &+ UInt64(i)), forKey: key)
            } else if i % 11 == 0 {
                try cache.remove(key: key)
            } else {
                reads += 1
                if let bytes = try cache.bytes(forKey: key) {
                    hits += 1
                    if !isWhole(bytes) { torn += 1 }
                }
            }
        }
        cache.close()
        print("reads \(reads) hits \(hits) torn \(torn)")
        exit(torn == 0 ? 0 : 3)
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write("DiskCacheWorker: \(error)\n".data(using: .utf8)!)
    exit(1)
}
