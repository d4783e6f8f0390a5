/// How a ``TestResponse`` body goes onto the wire.
///
/// Unless a response's own headers set `Content-Length`, the origin sends the length the body declares
/// (or chunked transfer coding when ``chunkedEncoding`` is used).
public enum TestBody: Sendable {
    /// No body (`Content-Length: 0`).
    case empty
    /// These bytes, at once.
    case bytes([UInt8])
    /// These chunks, each written and flushed after waiting `delay` (a slow body); `Content-Length` is
    /// their total.
    case slow(chunks: [[UInt8]], delay: Duration)
    /// `prefix`, then nothing more until the origin stops (a stalled body); `Content-Length` is
    /// `declaredLength`. When the origin stops, the connection is closed.
    case stall(prefix: [UInt8], declaredLength: Int)
    /// `Content-Length: declaredLength`, but only `bytes` (fewer) are sent before the connection is closed.
    case truncated([UInt8], declaredLength: Int)
    /// `Content-Length: declaredLength`, but all of `bytes` (more) are sent.
    case overlong([UInt8], declaredLength: Int)
    /// `length` bytes of the deterministic pattern of ``TestContent/generatedByte(at:)`` starting at
    /// pattern offset `offset`, streamed in 64 KiB chunks and never held whole in memory.
    case generated(length: Int, offset: Int = 0)
    /// The given bytes with chunked transfer coding (no `Content-Length`), one chunk per element.
    case chunkedEncoding([[UInt8]])

    /// The `Content-Length` this body announces, or nil for chunked transfer coding.
    public var declaredLength: Int? {
        switch self {
        case .empty: return 0
        case .bytes(let bytes): return bytes.count
        case .slow(let chunks, _): return chunks.reduce(0) { $0 + $1.count }
        case .stall(_, let declaredLength): return declaredLength
        case .truncated(_, let declaredLength): return declaredLength
        case .overlong(_, let declaredLength): return declaredLength
        case .generated(let length, _): return length
        case .chunkedEncoding: return nil
        }
    }

    /// A UTF-8 text body.
    public static func text(_ text: String) -> TestBody {
        .bytes(Array(text.utf8))
    }
}
