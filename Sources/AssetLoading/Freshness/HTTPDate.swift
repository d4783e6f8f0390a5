#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP dates (RFC 9110 5.6.7): parses the three formats recipients must accept and formats IMF-fixdate.
///
/// Parsing and formatting work on bytes with civil-calendar arithmetic: no `DateFormatter`, no locale, no
/// allocation beyond the result. Invalid input gives nil, never a guess.
public enum HTTPDate {
    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), an obsolete RFC 850 date
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) or an asctime date (`Sun Nov  6 08:49:37 1994`).
    ///
    /// - Parameters:
    ///   - value: the field value; surrounding whitespace is ignored.
    ///   - now: the reference for RFC 850 two-digit years: a year that would be more than 50 years after
    ///     `now` is taken as the most recent past year with the same last two digits (RFC 9110 5.6.7).
    /// - Returns: the date, or nil when `value` is not one of the three formats or names an impossible time.
    public static func parse(_ value: some StringProtocol, now: Date = Date()) -> Date? {
        var bytes = Array(value.utf8)
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        var start = 0
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        var scanner = DateScanner(bytes: bytes[start...])
        // the day name decides the format: "Sun," (IMF), "Sunday," (RFC 850), "Sun " (asctime)
        guard let dayNameLength = scanner.skipLetters(), dayNameLength >= 3 else { return nil }
        let dayName = bytes[start..<(start + dayNameLength)]
        if scanner.skip(UInt8(ascii: ",")) {
            guard scanner.skip(UInt8(ascii: " ")) else { return nil }
            if dayNameLength == 3 {
                guard Self.shortDayIndex(dayName) != nil else { return nil }
                return Self.parseIMFFixdate(&scanner)
            }
            guard Self.longDayIndex(dayName) != nil else { return nil }
            return Self.parseRFC850(&scanner, now: now)
        }
        guard dayNameLength == 3, Self.shortDayIndex(dayName) != nil, scanner.skip(UInt8(ascii: " ")) else { return nil }
        return Self.parseAsctime(&scanner)
    }

    /// Formats `date` as an IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`; fractions of a second are dropped.
    public static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 4 with Sunday = 0)
        var weekday = (days + 4) % 7
        if weekday < 0 { weekday += 7 }
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: shortDayNames[Int(weekday)].utf8)
        out.append(contentsOf: ", ".utf8)
        Self.appendTwoDigits(Int(day), to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: monthNames[Int(month) - 1].utf8)
        out.append(UInt8(ascii: " "))
        let yearDigits = String(max(0, year))
        out.append(contentsOf: String(repeating: "0", count: max(0, 4 - yearDigits.utf8.count)).utf8)
        out.append(contentsOf: yearDigits.utf8)
        out.append(UInt8(ascii: " "))
        Self.appendTwoDigits(Int(secondOfDay / 3600), to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendTwoDigits(Int(secondOfDay % 3600 / 60), to: &out)
        out.append(UInt8(ascii: ":"))
        Self.appendTwoDigits(Int(secondOfDay % 60), to: &out)
        out.append(contentsOf: " GMT".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: formats

    /// `06 Nov 1994 08:49:37 GMT`
    private static func parseIMFFixdate(_ scanner: inout DateScanner) -> Date? {
        guard let day = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: " ")),
            let month = scanner.month(), scanner.skip(UInt8(ascii: " ")),
            let year = scanner.digits(exactly: 4), scanner.skip(UInt8(ascii: " ")),
            let time = scanner.timeOfDay(), scanner.skipGMT(), scanner.isAtEnd
        else { return nil }
        return Self.makeDate(year: year, month: month, day: day, time: time)
    }

    /// `06-Nov-94 08:49:37 GMT`
    private static func parseRFC850(_ scanner: inout DateScanner, now: Date) -> Date? {
        guard let day = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: "-")),
            let month = scanner.month(), scanner.skip(UInt8(ascii: "-")),
            let twoDigitYear = scanner.digits(exactly: 2), scanner.skip(UInt8(ascii: " ")),
            let time = scanner.timeOfDay(), scanner.skipGMT(), scanner.isAtEnd
        else { return nil }
        let nowYear = Int(CivilCalendar.civil(fromDays: Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year)
        var year = nowYear - nowYear % 100 + twoDigitYear
        if year > nowYear + 50 {
            year -= 100
        }
        return Self.makeDate(year: year, month: month, day: day, time: time)
    }

    /// `Nov  6 08:49:37 1994` (the day is two digits or a space and one digit)
    private static func parseAsctime(_ scanner: inout DateScanner) -> Date? {
        guard let month = scanner.month(), scanner.skip(UInt8(ascii: " ")) else { return nil }
        let day: Int
        if scanner.skip(UInt8(ascii: " ")) {
            guard let digit = scanner.digits(exactly: 1) else { return nil }
            day = digit
        } else {
            guard let digits = scanner.digits(exactly: 2) else { return nil }
            day = digits
        }
        guard scanner.skip(UInt8(ascii: " ")), let time = scanner.timeOfDay(), scanner.skip(UInt8(ascii: " ")),
            let year = scanner.digits(exactly: 4), scanner.isAtEnd
        else { return nil }
        return Self.makeDate(year: year, month: month, day: day, time: time)
    }

    private static func makeDate(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            time.hour <= 23, time.minute <= 59, time.second <= 60
        else { return nil }
        let days = CivilCalendar.days(fromYear: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "0") + UInt8(value / 10))
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    static let shortDayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func shortDayIndex(_ bytes: ArraySlice<UInt8>) -> Int? {
        Self.shortDayNames.firstIndex { $0.utf8.elementsEqual(bytes) }
    }

    private static func longDayIndex(_ bytes: ArraySlice<UInt8>) -> Int? {
        Self.longDayNames.firstIndex { $0.utf8.elementsEqual(bytes) }
    }
}
