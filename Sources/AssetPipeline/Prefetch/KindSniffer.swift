import AssetCodecs
import AssetStorage

/// Guesses an asset's kind from its content type, the first bytes of its body and its URL's file
/// extension (the last resort, for containers such as ZIP and gzip that carry anything).
public enum KindSniffer {
    /// How many first bytes ``guess(contentType:prefix:url:)`` looks at.
    static let prefixLength = 512

    static func guess(contentType: String?, prefix: [UInt8], url: String) -> AssetKind {
        if let byBytes = kind(ofBytes: prefix, url: url) { return byBytes }
        let type = contentType?.split(separator: ";").first.map { PrefetchLine.trimmingWhitespace($0).lowercased() } ?? ""
        if type.hasPrefix("image/") { return .image }
        if type.hasPrefix("video/") || type == "application/vnd.apple.mpegurl" { return .video }
        if contains(type.utf8, "lottie".utf8) { return .lottie }
        return .raw
    }

    /// Whether `needle` occurs in `haystack`, byte for byte. Written out: Foundation's `range(of:)`,
    /// which an unqualified `String.contains` reaches here, cost as much as a cached item's whole
    /// check, and the standard library's generic `Collection.contains(_:)` is about 50 times slower
    /// than this scan on a Lottie file's first bytes (measured with `swiftc -O`).
    static func contains(_ haystack: some Collection<UInt8>, _ needle: some Collection<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        var start = haystack.startIndex
        while let at = haystack[start...].firstIndex(of: first) {
            if haystack[at...].starts(with: needle) { return true }
            start = haystack.index(after: at)
        }
        return false
    }

    /// The kind a URL's file extension suggests (query and fragment ignored), or nil. Used to pick the
    /// request's kind (its body size limit and the kind the cache records) before any byte arrives.
    public static func kind(ofPath url: String) -> AssetKind? {
        // bytes, not Characters: this runs once per list line, and Foundation's `contains` on a
        // String argument cost more than the rest of a cached item's check
        var path = url.utf8[...]
        if let end = path.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { path = path[..<end] }
        guard let dot = path.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let ext = path[path.index(after: dot)...]
        guard !ext.contains(UInt8(ascii: "/")) else { return nil }
        switch String(decoding: ext, as: UTF8.self).lowercased() {
        case "png", "jpg", "jpeg", "gif", "webp", "avif", "heic", "heif", "hif", "tif", "tiff", "svg", "svgz", "jxl": return .image
        case "json", "lottie", "tgs": return .lottie
        case "mp4", "m4v", "m4a", "mov", "webm", "mkv", "ts", "m4s", "mpd", "m3u8": return .video
        default: return nil
        }
    }

    /// Whether the first bytes are those of an image the decoders read: the decoder's own sniff
    /// (AVIF and HEIF before the `ftyp` box of video, SVG text by its root element), so that the two
    /// never disagree; a JPEG needs its first marker after SOI (`FF D8 FF`), not SOI alone.
    static func isDecodableImage(_ bytes: [UInt8]) -> Bool {
        guard let format = ImageFormat(sniffing: bytes), format.isDecodable else { return false }
        return format != .jpeg || bytes.starts(with: [0xFF, 0xD8, 0xFF])
    }

    /// The kind the bytes show, or nil when they don't say.
    static func kind(ofBytes bytes: [UInt8], url: String) -> AssetKind? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && bytes[offset..<(offset + magic.count)].elementsEqual(magic)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) || starts([0xFF, 0xD8, 0xFF]) {
            return .image
        }
        if isDecodableImage(bytes) { return .image }
        if starts(Array("ftyp".utf8), at: 4) || starts([0x1A, 0x45, 0xDF, 0xA3]) { return .video }
        func path() -> String { url.split(separator: "?").first.map(String.init)?.lowercased() ?? "" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return path().hasSuffix(".lottie") ? .lottie : nil }
        if starts([0x1F, 0x8B]) { return path().hasSuffix(".tgs") ? .lottie : nil }
        if looksLikeLottieJSON(bytes) { return .lottie }
        return nil
    }

    /// A JSON object whose first bytes show two of Lottie's keys: the top level's (`"v"`, `"fr"`,
    /// `"ip"`, `"op"`, `"layers"`, `"assets"`) or a layer's (`"ddd"`, `"ks"`, `"ty"`), as exporters write
    /// either near the top.
    static func looksLikeLottieJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.firstIndex(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }),
            bytes[first] == UInt8(ascii: "{")
        else { return false }
        let text = bytes[first...]
        let keys = ["\"v\"", "\"fr\"", "\"layers\"", "\"assets\"", "\"ip\"", "\"op\"", "\"ddd\"", "\"ks\"", "\"ty\""]
        return keys.filter { contains(text, $0.utf8) }.count >= 2
    }
}
