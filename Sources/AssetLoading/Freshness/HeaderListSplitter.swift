/// Splits list-based field values on commas that are not inside a quoted string (RFC 9110 5.6.1).
enum HeaderListSplitter {
    /// The trimmed, non-empty members of `value`.
    static func split(_ value: some StringProtocol) -> [String] {
        var members: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        var escaped = false
        for byte in value.utf8 {
            if inQuotes {
                current.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                Self.flush(&current, into: &members)
            case UInt8(ascii: "\""):
                inQuotes = true
                current.append(byte)
            default:
                current.append(byte)
            }
        }
        Self.flush(&current, into: &members)
        return members
    }

    private static func flush(_ bytes: inout [UInt8], into members: inout [String]) {
        let member = HeaderFields.trimmed(String(decoding: bytes, as: UTF8.self))
        if !member.isEmpty {
            members.append(member)
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Removes one level of quoting (`"a\"b"` becomes `a"b`); an unquoted value is returned trimmed.
    static func unquoted(_ value: some StringProtocol) -> String {
        let trimmed = HeaderFields.trimmed(String(value))
        guard trimmed.utf8.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") else {
            return trimmed
        }
        var result = ""
        var escaped = false
        for character in trimmed.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
