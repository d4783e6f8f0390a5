import AssetLoading
import Foundation
import Testing

@Suite("HTTPDate")
struct HTTPDateTests {
    /// RFC 9110 5.6.7's example instant, 1994-11-06 08:49:37 UTC.
    let example = Date(timeIntervalSince1970: 784_111_777)
    let now2026 = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-19

    @Test func parsesIMFFixdate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == self.example)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == self.example)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
    }

    @Test func parsesRFC850() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: self.now2026) == self.example)
    }

    @Test func rfc850TwoDigitYearsAreNeverMoreThan50YearsAhead() {
        // 2030 is 4 years after 2026: kept in this century
        #expect(HTTPDate.parse("Tuesday, 01-Jan-30 00:00:00 GMT", now: self.now2026) == Date(timeIntervalSince1970: 1_893_456_000))
        // 2070 is 44 years ahead: kept
        #expect(HTTPDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now: self.now2026) == Date(timeIntervalSince1970: 3_155_760_000))
        // 2077 would be 51 years ahead: 1977 instead
        #expect(HTTPDate.parse("Saturday, 01-Jan-77 00:00:00 GMT", now: self.now2026) == Date(timeIntervalSince1970: 220_924_800))
    }

    @Test func parsesAsctime() {
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == self.example)
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == self.example.addingTimeInterval(10 * 86_400))
    }

    @Test(arguments: [
        "",
        "0",
        "-1",
        "tomorrow",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 31 Feb 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT junk",
        "Sun,06 Nov 1994 08:49:37 GMT",
        "Sunday, 06 Nov 1994 08:49:37 GMT x",
        "Sundae, 06-Nov-94 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994",
        "Sun Nov  6 08:49:37 94",
        "Sun Nov  6 08:49:37 1994 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT",
    ])
    func rejectsInvalidInput(_ value: String) {
        #expect(HTTPDate.parse(value) == nil)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.format(self.example.addingTimeInterval(0.999)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func formatThenParseRoundTripsAcrossCenturies() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...4_102_444_800, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test func agreesWithFoundationOnWeekdays() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for day in stride(from: 0, to: 40_000, by: 97) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400 + 12_345)
            #expect(HTTPDate.format(date) == formatter.string(from: date))
        }
    }
}
