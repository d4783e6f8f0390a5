#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A name in a shard folder that the disk cache knows; anything else is ignored.
enum ShardName {
    /// `<hash>.entry`, with its inode from the listing.
    case entry(KeyDigest, inode: UInt64)
    /// `<hash>.meta.json`.
    case sidecar(KeyDigest)
    /// `<hash>.data` of the two-file layout.
    case legacyData(KeyDigest)
    /// `<pid>-<random>-<n>.tmp`: a writer's temporary file.
    case temporary(String)
}

extension POSIX {
    /// Lists a shard folder (`readdir`: names and inodes, no `stat`), parsing each name in place
    /// without building a string; nothing when the folder does not exist.
    static func forEachShardName(_ path: String, _ body: (ShardName) throws -> Void) throws {
        guard let dir = path.withCString({ opendir($0) }) else {
            if errno == ENOENT { return }
            throw error("opendir", path)
        }
        defer { closedir(dir) }
        // The name is read in place: a record from readdir can be shorter than `dirent`.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: UInt8.self)
            let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
            if length > 4, length < 64, UnsafeBufferPointer(start: name + length - 4, count: 4).elementsEqual(".tmp".utf8) {
                try body(.temporary(String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))))
                continue
            }
            guard length >= 69, let digest = parseDigest(name) else { continue }
            let suffix = UnsafeBufferPointer(start: name + 64, count: length - 64)
            if suffix.elementsEqual(".entry".utf8) {
                try body(.entry(digest, inode: UInt64(entry.pointee.d_ino)))
            } else if suffix.elementsEqual(".meta.json".utf8) {
                try body(.sidecar(digest))
            } else if suffix.elementsEqual(".data".utf8) {
                try body(.legacyData(digest))
            }
        }
    }

    /// The digest spelled by the first 64 characters (lowercase hex); nil otherwise.
    private static func parseDigest(_ name: UnsafePointer<UInt8>) -> KeyDigest? {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for w in 0..<4 {
            var word: UInt64 = 0
            for i in 0..<16 {
                let c = name[w * 16 + i]
                let v: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c &- UInt8(ascii: "a") &+ 10
                default: return nil
                }
                word = word << 4 | UInt64(v)
            }
            switch w {
            case 0: words.0 = word
            case 1: words.1 = word
            case 2: words.2 = word
            default: words.3 = word
            }
        }
        return KeyDigest(w0: words.0, w1: words.1, w2: words.2, w3: words.3)
    }
}
