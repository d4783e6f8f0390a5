import Foundation

/// One input through a parser of this module, for the libFuzzer targets (`scripts/fuzz`) and for
/// the regression tests that replay what they found (`Fixtures/fuzz/`).
///
/// Each entry returns nil when the parser kept its promises on the input, or which promise it
/// broke; a crash is a finding too. Not part of the library's API.
@_spi(Fuzzing)
public enum PipelineFuzzing {
    /// A `Content-Range` value: what parses describes bytes inside the length, and written back as
    /// `bytes FIRST-LAST/LENGTH` parses to the same.
    public static func contentRange(_ bytes: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let parsed = ContentRange(text) else { return nil }
        if let range = parsed.range {
            if range.isEmpty || range.lowerBound < 0 { return "an empty or negative range \(range)" }
            if let total = parsed.totalLength, range.upperBound > total { return "\(range) passes the length \(total)" }
        }
        let written = "bytes " + (parsed.range.map { "\($0.lowerBound)-\($0.upperBound - 1)" } ?? "*") + "/" + (parsed.totalLength.map(String.init) ?? "*")
        if ContentRange(written) != parsed { return "\(written) does not parse back to \(parsed)" }
        return nil
    }

    /// A line of a prefetch list: an item's URL is an http(s) URL with a host and no whitespace,
    /// and the item's own line (`URL` or `URL<TAB>kind`) parses to the same item.
    public static func prefetchLine(_ bytes: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard case .item(let url, let kind)? = PrefetchLine.parse(text) else { return nil }
        if url.contains(where: \.isWhitespace) { return "the URL '\(url)' has whitespace" }
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "the URL '\(url)' is not http or https"
        }
        let line = kind.map { "\(url)\t\($0.rawValue)" } ?? url
        if PrefetchLine.parse(line) != .item(url: url, kind: kind) { return "'\(line)' does not parse to the same item" }
        _ = KindSniffer.kind(ofPath: url)
        return nil
    }
}
