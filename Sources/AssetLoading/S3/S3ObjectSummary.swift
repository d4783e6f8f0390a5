#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object of a listing (`ListObjectsV2`).
public struct S3ObjectSummary: Sendable, Hashable {
    /// The key, decoded.
    public var key: String
    /// `LastModified`, when it parses.
    public var lastModified: Date?
    /// `Size`.
    public var size: Int64

    /// Creates a value.
    public init(key: String, lastModified: Date?, size: Int64) {
        self.key = key
        self.lastModified = lastModified
        self.size = size
    }

    /// `2026-11-29T00:21:41.123Z` (S3's form of ISO 8601, UTC, fractional seconds optional).
    static func parseTimestamp(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes[19] == UInt8(ascii: ".") {
            var scale = 0.1
            for byte in bytes[20..<(bytes.count - 1)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                fraction += Double(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
        } else if bytes.count != 20 {
            return nil
        }
        let days = CivilCalendar.days(fromYear: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
