#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SigV4Signer {
    /// `20150830T123600Z` in UTC.
    static func amzDate(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let inDay = seconds - days * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day))T\(two(inDay / 3600))\(two(inDay / 60 % 60))\(two(inDay % 60))Z"
    }

    /// URI-encodes every byte of `text`'s UTF-8 but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) and,
    /// with `keepSlash`, `/`: `%20` a space, `%2B` a `+`, `%25` a `%`.
    public static func uriEncode(_ text: String, keepSlash: Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The path encoded once, as S3 signs it (not normalized); `/` when empty.
    static func canonicalPath(_ path: String) -> String {
        path.isEmpty ? "/" : Self.uriEncode(path, keepSlash: true)
    }

    /// `name=value` pairs encoded, sorted by name then value, joined with `&`.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { pair in
            (Self.uriEncode(pair.0, keepSlash: false), Self.uriEncode(pair.1, keepSlash: false))
        }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair -> String in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// The fields lowercased and sorted by name; values trimmed, inner runs of spaces made one, the
    /// values of a repeated name joined with `,` in their order.
    static func canonicalHeaders(_ headers: [(String, String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            merged[name.lowercased(), default: []].append(Self.normalizedValue(value))
        }
        return merged.sorted { $0.key < $1.key }.map { ($0.key, $0.value.joined(separator: ",")) }
    }

    static func normalizedValue(_ value: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in value {
            if character == " " || character == "\t" || character == "\n" || character == "\r" {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.append(character)
        }
        return out
    }
}
