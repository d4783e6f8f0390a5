#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// ISO 8601 timestamps (`2026-11-22T20:27:50.123Z`, UTC, milliseconds) without a formatter,
/// for the metadata files: fast to write and to read back.
enum ISO8601 {
    static func string(from date: Date) -> String {
        let millisTotal = (date.timeIntervalSince1970 * 1000).rounded(.down)
        var seconds = time_t(Int64((millisTotal / 1000).rounded(.down)))
        let millis = Int(millisTotal - Double(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let s = String(value)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (and `+00:00`); `nil` for anything else.
    static func date(from text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func num(_ from: Int, _ count: Int) -> Int32? {
            var v: Int32 = 0
            for i in from..<(from + count) {
                guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                v = v * 10 + Int32(b[i] - 0x30)
            }
            return v
        }
        guard let year = num(0, 4), b[4] == 0x2D, let month = num(5, 2), b[7] == 0x2D,
              let day = num(8, 2), b[10] == UInt8(ascii: "T"), let hour = num(11, 2), b[13] == 0x3A,
              let minute = num(14, 2), b[16] == 0x3A, let second = num(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 {
                fraction += Double(b[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        let tail = String(decoding: b[index...], as: UTF8.self)
        guard tail == "Z" || tail == "+00:00" else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
