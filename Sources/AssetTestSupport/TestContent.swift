/// The full content of a ``TestResource``: literal bytes or a large generated pattern.
public enum TestContent: Sendable, Hashable {
    /// Literal bytes.
    case bytes([UInt8])
    /// `length` bytes of the pattern ``generatedByte(at:)``, produced on demand.
    case generated(length: Int)

    /// The content length in bytes.
    public var count: Int {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .generated(let length): return length
        }
    }

    /// The body sending `range` of the content (the whole content when nil).
    public func body(range: Range<Int>? = nil) -> TestBody {
        let range = range ?? 0..<self.count
        switch self {
        case .bytes(let bytes): return .bytes(Array(bytes[range]))
        case .generated: return .generated(length: range.count, offset: range.lowerBound)
        }
    }

    /// The byte at `offset` of every generated body: `offset % 251` (a prime, so that the pattern does
    /// not line up with power-of-two chunk sizes).
    public static func generatedByte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % 251)
    }

    /// The bytes `range` of the generated pattern, for tests that compare what they received.
    public static func generatedBytes(_ range: Range<Int>) -> [UInt8] {
        range.map(Self.generatedByte(at:))
    }
}
