/// A small JSON value with a byte-level reader and writer: the cache's metadata files, and the
/// service's JSON answers.
///
/// The disk cache reads every `.meta.json` when it opens; Foundation's `JSONDecoder` runs at
/// about 10 MB/s on Linux, which would make opening 100k entries take seconds. These files are
/// small and written by us, but they are still read defensively: any malformed input is a
/// `nil`, never a crash, and depth and size are bounded.
public enum CompactJSON: Equatable, Sendable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (always finite); a whole number below 9e15 in magnitude is written without a fraction.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([CompactJSON])
    /// An object: its members in the order they were read or given (a repeated name is kept).
    case object([(String, CompactJSON)])

    /// Whether two values are the same; objects are equal when their members are, in the same order.
    public static func == (lhs: CompactJSON, rhs: CompactJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The value of an object's member, or nil.
    public subscript(key: String) -> CompactJSON? {
        guard case let .object(members) = self else { return nil }
        for (name, value) in members where name == key { return value }
        return nil
    }

    /// The string, when the value is a string.
    public var stringValue: String? { if case let .string(s) = self { return s }; return nil }
    /// The number as an integer, when it is a whole number of magnitude below 9e15.
    public var int64Value: Int64? {
        guard case let .number(n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int64(n)
    }

    // MARK: reading

    /// The deepest nesting ``parse(_:)`` accepts.
    public static let maxDepth = 32

    /// Parses whole JSON bytes (at most ``maxDepth`` levels deep); nil for anything else.
    public static func parse(_ bytes: [UInt8]) -> CompactJSON? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.index == buffer.count ? value : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for i in 0..<count where bytes[index + i] != text.utf8Start[i] { return false }
            index += count
            return true
        }

        mutating func value(depth: Int) -> CompactJSON? {
            guard depth < CompactJSON.maxDepth else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, CompactJSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let member = value(depth: depth + 1) else { return nil }
                    members.append((key, member))
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    return nil
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [CompactJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    guard let item = value(depth: depth + 1) else { return nil }
                    items.append(item)
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    return nil
                }
            case UInt8(ascii: "\""):
                return string().map(CompactJSON.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        mutating func number() -> CompactJSON? {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            var integer: Int64 = 0
            var digits = 0
            var simple = true
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 18 { integer = integer * 10 + Int64(bytes[index] - 0x30) } else { simple = false }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits > 1, bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == 0x30 { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
                simple = false
                if bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    let fractionStart = index
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                    guard index > fractionStart else { return nil }
                }
                if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                    index += 1
                    if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                    let exponentStart = index
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                    guard index > exponentStart else { return nil }
                }
            }
            if simple {
                return .number(Double(bytes[start] == UInt8(ascii: "-") ? -integer : integer))
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { return nil }
            return .number(value)
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let digit: UInt8
                switch c {
                case 0x30...0x39: digit = c - 0x30
                case 0x41...0x46: digit = c - 0x41 + 10
                case 0x61...0x66: digit = c - 0x61 + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    return String(validating: raw, as: UTF8.self)
                }
                if c == UInt8(ascii: "\\") || c < 0x20 { break }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let c = bytes[index]
                index += 1
                switch c {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: return nil
                    }
                default:
                    guard c >= 0x20 else { return nil }
                    out.append(c)
                }
            }
            return nil
        }
    }

    // MARK: writing

    /// Appends the compact JSON text (members in their order, no spaces).
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .number(n):
            if n.rounded() == n, abs(n) < 9.0e15 {
                out.append(contentsOf: String(Int64(n)).utf8)
            } else if n.isFinite {
                out.append(contentsOf: "\(n)".utf8)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case let .string(s): Self.writeString(s, into: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The compact JSON text.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out)
        return out
    }
}
