#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checksums of bytes as the disk cache writes them, for callers that need a content identity of
/// bytes they hold (a derived entry's source that carried no validator).
public enum BytesChecksum {
    /// The XXH3-128 checksum of `bytes`, written `xxh128:<32 hex>` as entries' checksums are.
    public static func string(of bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { ContentChecksum.of($0).string }
    }
}
