/// Which bytes of a resource a read wants: `start..<end`, `start...` (to the end) or the last
/// `n` bytes. Ranges are clipped to the resource's length once it is known.
public enum VideoByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The bytes `start..<end` (`end` past the resource's end is clipped).
    case bounded(Range<Int64>)
    /// From `start` to the end.
    case from(Int64)
    /// The last `n` bytes (all of them when the resource is shorter).
    case suffix(Int64)

    /// Rejects what no resource could satisfy: negative offsets, a suffix of zero bytes.
    func validate() throws {
        switch self {
        case .bounded(let range):
            guard range.lowerBound >= 0 else { throw VideoError(.invalidRange, "the range \(self) starts before 0") }
        case .from(let start):
            guard start >= 0 else { throw VideoError(.invalidRange, "the range \(self) starts before 0") }
        case .suffix(let count):
            guard count > 0 else { throw VideoError(.invalidRange, "a suffix range must ask for at least one byte") }
        }
    }

    /// Whether it asks for no byte at all (`n..<n`).
    var isEmpty: Bool {
        if case .bounded(let range) = self { return range.isEmpty }
        return false
    }

    /// The first byte asked for, when it does not depend on the length.
    var knownStart: Int64? {
        switch self {
        case .bounded(let range): return range.lowerBound
        case .from(let start): return start
        case .suffix: return nil
        }
    }

    /// The bytes to serve of a resource of `length` bytes: clipped to the end; an error when
    /// no byte of it exists.
    func resolve(length: Int64) throws -> Range<Int64> {
        let range: Range<Int64>
        switch self {
        case .bounded(let r): range = r.lowerBound..<min(r.upperBound, max(length, r.lowerBound))
        case .from(let start): range = start..<max(length, start)
        case .suffix(let count): range = max(0, length - count)..<length
        }
        if isEmpty { return range }
        guard range.lowerBound < length else {
            throw VideoError(.rangeNotSatisfiable, "the range \(self) lies past the end of the \(length) bytes", totalLength: length)
        }
        return range
    }

    /// The range as text: `0..<1024`, `4096...` or `last 512`.
    public var description: String {
        switch self {
        case .bounded(let r): return "\(r.lowerBound)..<\(r.upperBound)"
        case .from(let start): return "\(start)..."
        case .suffix(let count): return "last \(count)"
        }
    }
}
