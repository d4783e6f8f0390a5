import Foundation
import ZIPFoundation

/// The central directory of an in-memory zip archive, read with bounds checks on every field,
/// and entry contents read from it without ever touching the file system.
///
/// Written here rather than using ZIPFoundation's `Archive.extract`, whose inflate loop reads past
/// its buffer and never ends on a corrupt deflate stream (a 328-byte archive hung it); inflating
/// still goes through ZIPFoundation's zlib binding (`Inflater`). ZIP64 and encryption are refused.
struct ZipDirectory {
    struct Entry {
        var path: String
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
        var isDirectory: Bool { path.hasSuffix("/") }
    }

    let data: Data
    private(set) var entries: [Entry] = []

    init(_ data: Data, maxEntries: Int) throws(LottieError) {
        self.data = data
        let bytes = [UInt8](data)
        guard bytes.count >= 22 else { throw Self.bad("too short for a zip archive") }
        var eocd = -1
        var position = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 65_535)
        while position >= lowest {
            if Self.u32(bytes, position) == 0x0605_4B50 {
                eocd = position
                break
            }
            position -= 1
        }
        guard eocd >= 0 else { throw Self.bad("no end of central directory record") }
        let count = Int(Self.u16(bytes, eocd + 10))
        let directoryOffset = Int(Self.u32(bytes, eocd + 16))
        guard count != 0xFFFF, directoryOffset != 0xFFFF_FFFF else { throw Self.bad("ZIP64 archives are not supported") }
        guard count <= maxEntries else {
            throw LottieError.archiveLimitExceeded.with("\(count) entries (limit \(maxEntries))")
        }
        var offset = directoryOffset
        for _ in 0..<count {
            guard offset >= 0, offset + 46 <= bytes.count, Self.u32(bytes, offset) == 0x0201_4B50 else {
                throw Self.bad("corrupt central directory")
            }
            let nameLength = Int(Self.u16(bytes, offset + 28))
            let extraLength = Int(Self.u16(bytes, offset + 30))
            let commentLength = Int(Self.u16(bytes, offset + 32))
            guard offset + 46 + nameLength <= bytes.count else { throw Self.bad("corrupt central directory") }
            let name = String(decoding: bytes[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            entries.append(Entry(
                path: name, method: Self.u16(bytes, offset + 10), flags: Self.u16(bytes, offset + 8),
                crc32: Self.u32(bytes, offset + 16), compressedSize: Int(Self.u32(bytes, offset + 20)),
                uncompressedSize: Int(Self.u32(bytes, offset + 24)), localHeaderOffset: Int(Self.u32(bytes, offset + 42))))
            offset += 46 + nameLength + extraLength + commentLength
        }
    }

    /// The contents of `entry`, at most `maxBytes` long, CRC-checked.
    func contents(of entry: Entry, maxBytes: Int) throws(LottieError) -> Data {
        guard entry.flags & 0x1 == 0 else { throw Self.bad("\(entry.path) is encrypted") }
        guard entry.uncompressedSize <= maxBytes else {
            throw LottieError.decompressedTooLarge.with("\(entry.path) holds \(entry.uncompressedSize) bytes (limit \(maxBytes))")
        }
        let header = entry.localHeaderOffset
        guard header >= 0, header + 30 <= data.count else { throw Self.bad("\(entry.path): bad local header offset") }
        let local = [UInt8](data[(data.startIndex + header)..<(data.startIndex + header + 30)])
        guard Self.u32(local, 0) == 0x0403_4B50 else { throw Self.bad("\(entry.path): bad local header") }
        let start = header + 30 + Int(Self.u16(local, 26)) + Int(Self.u16(local, 28))
        guard start <= data.count, entry.compressedSize <= data.count - start else {
            throw Self.bad("\(entry.path): data runs past the end of the archive")
        }
        let raw = data.subdata(in: (data.startIndex + start)..<(data.startIndex + start + entry.compressedSize))
        let contents: Data
        let crc: UInt32
        switch entry.method {
        case 0:
            contents = raw
            crc = raw.crc32(checksum: 0)
        case 8:
            // The header's size may lie: the inflater counts what really comes out.
            (contents, crc) = try Inflater.inflate(raw, maxOutputBytes: maxBytes, what: entry.path)
        default:
            throw Self.bad("\(entry.path): unsupported compression method \(entry.method)")
        }
        guard contents.count == entry.uncompressedSize, crc == entry.crc32 else {
            throw Self.bad("\(entry.path): size or checksum mismatch")
        }
        return contents
    }

    private static func bad(_ message: String) -> LottieError {
        LottieError.invalidArchive.with(message)
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
