import AssetLoading
import AssetStorage
import Foundation

/// One line of a prefetch list: `URL` or `URL<TAB>KIND`.
///
/// Blank lines and lines whose first non-blank character is `#` are not items. Whitespace around
/// each column is ignored. KIND is `image`, `lottie`, `video` or `raw`; without it the kind is
/// guessed from the response. Only `http` and `https` URLs with a host and `s3://bucket/key` are accepted; anything
/// else is a malformed item (reported, never fetched).
public enum PrefetchLine: Sendable, Equatable {
    /// A URL to fetch, with the kind the list names, if any.
    case item(url: String, kind: AssetKind?)
    /// A line that is not a usable item, and why.
    case malformed(text: String, reason: String)

    /// Parses one line (without its line break); `nil` for a blank or comment line.
    public static func parse<S: StringProtocol>(_ line: S) -> PrefetchLine? {
        let trimmed = String(trimmingWhitespace(line[...]))
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        let columns = trimmed.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        let url = String(trimmingWhitespace(columns[0]))
        var kind: AssetKind?
        if columns.count > 1 {
            let name = String(trimmingWhitespace(columns[1]))
            if !name.isEmpty {
                guard let named = AssetKind(rawValue: name.lowercased()) else {
                    return .malformed(text: trimmed, reason: "unknown kind '\(name)' (image, lottie, video or raw)")
                }
                kind = named
            }
        }
        if let reason = problem(with: url) { return .malformed(text: trimmed, reason: reason) }
        return .item(url: url, kind: kind)
    }

    /// `text` without leading and trailing whitespace (Unicode's, line breaks included); no
    /// Foundation bridging, as a list of a million lines is parsed line by line.
    static func trimmingWhitespace<S: StringProtocol>(_ text: S) -> S.SubSequence {
        // the usual line has nothing to trim: it starts and ends with a printable ASCII byte
        func printable(_ c: Character?) -> Bool { c?.asciiValue.map { $0 > 0x20 && $0 < 0x7F } ?? false }
        if printable(text.first), printable(text.last) { return text[...] }
        guard let first = text.firstIndex(where: { !$0.isWhitespace }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { !$0.isWhitespace })!
        return text[first...last]
    }

    /// Why `url` cannot be fetched, or nil when it can.
    static func problem(with url: String) -> String? {
        // every kind of whitespace and control character (URL(string:) lets a vertical tab or a NUL through)
        // (ASCII by its bytes; Unicode's properties only for a URL that has non-ASCII bytes)
        if url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
            || (url.utf8.contains { $0 >= 0x80 } && url.unicodeScalars.contains { $0.properties.isWhitespace })
        {
            return "not a URL: it contains whitespace or a control character"
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else {
            return "not a URL"
        }
        if scheme == "s3" {
            do {
                _ = try S3Location(url: url)
                return nil
            } catch {
                return error.message
            }
        }
        guard scheme == "http" || scheme == "https" else {
            return "unsupported scheme '\(scheme)' (http, https and s3 only)"
        }
        guard let host = parsed.host, !host.isEmpty else { return "the URL has no host" }
        return nil
    }
}
