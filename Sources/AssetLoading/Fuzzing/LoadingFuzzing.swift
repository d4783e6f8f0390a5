#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One input through a parser of this module, for the libFuzzer targets (`scripts/fuzz`) and for
/// the regression tests that replay what they found (`Fixtures/fuzz/`).
///
/// Each entry returns nil when the parser kept its promises on the input, or which promise it
/// broke; a crash is a finding too. Not part of the library's API.
@_spi(Fuzzing)
public enum LoadingFuzzing {
    /// `Cache-Control` field values (the input split at line feeds, one field per line): every
    /// delta-seconds argument lands in `0...maximumDeltaSeconds`, and parsing the same fields twice
    /// gives the same directives.
    public static func cacheControl(_ bytes: UnsafeRawBufferPointer) -> String? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let parsed = CacheControl(fieldValues: fields)
        let limit = 0...CacheControl.maximumDeltaSeconds
        for (name, value) in [
            ("max-age", parsed.maxAge), ("s-maxage", parsed.sharedMaxAge), ("stale-while-revalidate", parsed.staleWhileRevalidate),
            ("stale-if-error", parsed.staleIfError), ("min-fresh", parsed.minFresh),
        ] {
            if let value, !limit.contains(value) { return "\(name) \(value) is outside 0...\(CacheControl.maximumDeltaSeconds)" }
        }
        if case .seconds(let seconds) = parsed.maxStale, !limit.contains(seconds) { return "max-stale \(seconds) is out of range" }
        if CacheControl(fieldValues: fields) != parsed { return "parsing the same fields twice differs" }
        return nil
    }

    /// An HTTP-date in any of its three formats: a date that parses formats as an IMF-fixdate that
    /// parses back to the same second, and `Retry-After` takes the same value.
    public static func httpDate(_ bytes: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        _ = AssetLoader.RetryPolicy.retryAfter(text, now: now)
        guard let date = HTTPDate.parse(text, now: now) else { return nil }
        let formatted = HTTPDate.format(date)
        guard let again = HTTPDate.parse(formatted, now: now) else { return "\(formatted) (from \(date)) does not parse" }
        if again != date { return "\(formatted) parses to \(again), not \(date)" }
        return nil
    }
}
