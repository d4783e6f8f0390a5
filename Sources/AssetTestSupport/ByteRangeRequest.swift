import Foundation

/// The outcome of a `Range` header against a representation of known length (RFC 9110 14.1.2, 14.2).
enum ByteRangeRequest: Equatable {
    /// One satisfiable range, clipped to the length.
    case satisfiable(Range<Int>)
    /// Valid syntax, but no byte of the range exists: 416.
    case unsatisfiable
    /// Not a single `bytes` range this origin handles: ignore the header and send 200.
    case ignored

    static func parse(_ value: String, length: Int) -> ByteRangeRequest {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .ignored }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .ignored }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // suffix range: the last N bytes
            guard let suffix = Int(last), suffix >= 0 else { return .ignored }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let start = Int(first), start >= 0 else { return .ignored }
        var end = length - 1
        if !last.isEmpty {
            guard let lastByte = Int(last), lastByte >= start else { return .ignored }
            end = min(lastByte, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .satisfiable(start..<(end + 1))
    }
}
