/// A client's `Range` header (RFC 9110 14.2), as far as the server answers it: one range of bytes.
///
/// Several ranges are answered with the whole representation (allowed by 14.2); a header that does
/// not parse, or another unit, is ignored (also allowed).
enum ClientRange: Sendable, Hashable {
    /// `bytes=first-last` (`last` nil for `first-`).
    case from(first: Int64, last: Int64?)
    /// `bytes=-count`.
    case suffix(count: Int64)

    /// The one range of `value`, or nil when it is to be ignored.
    init?(header value: String) {
        let trimmed = value.trimmingSpaces
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "bytes=" else { return nil }
        let set = trimmed.dropFirst(6)
        guard !set.contains(",") else { return nil }
        let spec = set.trimmingSpaces
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpaces, last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            guard let count = Self.digits(last), count > 0 else { return nil }
            self = .suffix(count: count)
            return
        }
        guard let start = Self.digits(first) else { return nil }
        if last.isEmpty {
            self = .from(first: start, last: nil)
            return
        }
        guard let end = Self.digits(last), end >= start else { return nil }
        self = .from(first: start, last: end)
    }

    /// The bytes to send of a representation of `length` bytes, as a half-open range; nil when the
    /// range is not satisfiable (a 416).
    func resolve(length: Int64) -> Range<Int64>? {
        switch self {
        case .from(let first, let last):
            guard first < length else { return nil }
            return first..<min(length, (last ?? (length - 1)) + 1)
        case .suffix(let count):
            guard length > 0 else { return nil }
            return max(0, length - count)..<length
        }
    }

    /// `bytes first-last/length`, the `Content-Range` of a 206.
    static func contentRange(_ range: Range<Int64>, length: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return Substring(slice)
    }
}
