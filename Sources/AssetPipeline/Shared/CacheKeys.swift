import AssetLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cache keys for the utils: the loader's default key of a URL, computed without parsing the URL
/// when it is already in normal form, so that a memory-cache hit costs no URL parsing.
enum CacheKeys {
    /// The caller's key, or ``AssetLoader/defaultCacheKey(for:)`` of `url`.
    static func key(for url: String, custom: String?) -> String {
        if let custom { return custom }
        return isNormalized(url) ? url : AssetLoader.defaultCacheKey(for: url)
    }

    /// `true` when `url` is certainly its own default key: `http` or `https` in lowercase, an
    /// authority with no upper-case letters and no user information, no fragment, and only bytes
    /// that a URL may hold unescaped (so that `URLComponents` keeps them as they are). When this
    /// says `false`, the slow path decides.
    static func isNormalized(_ url: String) -> Bool {
        var url = url
        return url.withUTF8(isNormalized(_:))
    }

    private static func isNormalized(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // "http://" or "https://"
        guard bytes.count > 7, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"),
            bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "p")
        else { return false }
        var position = bytes[4] == UInt8(ascii: "s") ? 5 : 4
        guard position + 3 <= bytes.count, bytes[position] == UInt8(ascii: ":"),
            bytes[position + 1] == UInt8(ascii: "/"), bytes[position + 2] == UInt8(ascii: "/")
        else { return false }
        position += 3
        let authorityStart = position
        // The authority: up to the first "/" or "?", without upper case or user information.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") { break }
            guard isAllowed(byte), byte != UInt8(ascii: "@"), !(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) else {
                return false
            }
            position += 1
        }
        guard position > authorityStart else { return false }
        while position < bytes.count {
            guard isAllowed(bytes[position]) else { return false }
            position += 1
        }
        return true
    }

    /// Printable ASCII other than space, `"`, `#`, `<`, `>`, `\`, `^`, backquote, `{`, `|`, `}`:
    /// one bit per byte value below 128 (a per-byte `switch` was the slowest part of a memory hit).
    @inline(__always)
    private static func isAllowed(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0xaffffff200000000, high: UInt64 = 0x47fffffeafffffff
        guard byte < 128 else { return false }
        let mask = byte < 64 ? low : high
        return (mask >> UInt64(byte & 63)) & 1 == 1
    }
}
