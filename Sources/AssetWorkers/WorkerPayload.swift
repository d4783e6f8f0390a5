/// Little-endian integers in and out of a job's payload, for jobs that carry a few numbers and
/// then bytes (``WorkerLoop`` and ``WorkerPool`` use it for their own messages too).
public struct WorkerPayloadWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty payload with room for `capacity` bytes.
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends the low `width` bytes of `value`, little-endian.
    public mutating func append(_ value: UInt64, width: Int = 8) {
        for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    /// Appends one byte.
    public mutating func append(byte: UInt8) { bytes.append(byte) }

    /// Appends `more` as they are.
    public mutating func append(contentsOf more: some Sequence<UInt8>) { bytes.append(contentsOf: more) }
}

/// Reads what a ``WorkerPayloadWriter`` wrote; every read is nil past the end.
public struct WorkerPayloadReader: Sendable {
    private let bytes: [UInt8]
    /// Where the next read starts.
    public private(set) var offset = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next `width` bytes as a little-endian integer.
    public mutating func word(width: Int = 8) -> UInt64? {
        guard bytes.count - offset >= width else { return nil }
        var value: UInt64 = 0
        for shift in 0..<width { value |= UInt64(bytes[offset + shift]) << (8 * UInt64(shift)) }
        offset += width
        return value
    }

    /// The next 8 bytes as a non-negative integer that fits in 31 bits.
    public mutating func integer() -> Int? {
        guard let word = word(), word <= UInt64(Int32.max) else { return nil }
        return Int(word)
    }

    /// The next byte.
    public mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `count` bytes.
    public mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// The bytes not read yet.
    public var rest: ArraySlice<UInt8> { bytes[offset...] }
}
