import Foundation

/// A `Content-Range: bytes FIRST-LAST/LENGTH` (or `bytes */LENGTH` of a 416) field value.
struct ContentRange: Sendable, Hashable {
    /// The bytes the body carries (`nil` for `*`).
    var range: Range<Int64>?
    /// The complete length (`nil` for `*`).
    var totalLength: Int64?

    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            totalLength = nil
        } else {
            guard let total = Int64(parts[1]), total >= 0 else { return nil }
            totalLength = total
        }
        if parts[0] == "*" {
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first >= 0, last >= first else {
            return nil
        }
        if let totalLength, last >= totalLength { return nil }
        range = first..<(last + 1)
    }
}
