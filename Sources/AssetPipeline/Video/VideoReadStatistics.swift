import Foundation

/// What one read cost: where its bytes came from and how many requests it sent.
public struct VideoReadStatistics: Sendable, Equatable {
    /// Bytes handed to the caller.
    public var bytes: Int64 = 0
    /// ... of which were read from the cache: stored chunks, or a whole copy in the disk cache.
    public var bytesFromCache: Int64 = 0
    /// ... of those, the bytes read from a whole copy in the disk cache (a video prefetched whole).
    public var bytesFromDiskCache: Int64 = 0
    /// Body bytes that this read's own requests received (whole chunks, so it may exceed the
    /// bytes handed out).
    public var bytesFromOrigin: Int64 = 0
    /// Bytes handed out that another concurrent read was fetching (shared, not fetched twice).
    public var bytesFromSharedFetches: Int64 = 0
    /// Requests this read sent to the origin.
    public var originRequests: Int = 0
    /// The status of the last response the origin sent this read (206 for a range, 304 for a
    /// revalidation); nil when the cache answered alone.
    public var status: Int?
    /// The resource's total length, once known.
    public var totalLength: Int64?
    /// The bytes served, once the length resolved the range.
    public var range: Range<Int64>?

    /// Creates statistics with every count at zero and nothing known of the resource.
    public init() {}

    /// Adds the origin costs of an earlier, abandoned attempt.
    mutating func addCosts(of other: VideoReadStatistics) {
        bytesFromOrigin += other.bytesFromOrigin
        originRequests += other.originRequests
        if status == nil { status = other.status }
    }
}

/// The bytes of a read and what they cost.
public struct VideoReadResult: Sendable {
    /// The bytes of the range, in order.
    public var data: Data
    /// Where the bytes came from and how many requests they took.
    public var statistics: VideoReadStatistics
}
