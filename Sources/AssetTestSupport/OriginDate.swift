import Foundation

/// IMF-fixdate formatting and parsing for the origin's `Last-Modified` and `If-Modified-Since`.
///
/// Deliberately independent of `AssetLoading.HTTPDate`, so that the origin does not test the loader's
/// date code against itself.
enum OriginDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar
    }

    static func format(_ date: Date) -> String {
        let parts = Self.calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(Self.weekdays[parts.weekday! - 1]), \(two(parts.day)) \(Self.months[parts.month! - 1]) \(parts.year!) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }

    /// Parses an IMF-fixdate only; nil otherwise.
    static func parse(_ value: String) -> Date? {
        let parts = value.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = Self.months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        let components = DateComponents(year: year, month: month + 1, day: day, hour: time[0], minute: time[1], second: time[2])
        return Self.calendar.date(from: components)
    }
}
