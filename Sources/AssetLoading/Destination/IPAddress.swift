#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as a value: parsed from a literal or taken from a resolved socket address.
///
/// Parsing is a pure function of the text (no name lookup): ``init(_:)`` accepts the standard forms
/// (`203.0.113.7`, `2001:db8::1`, with or without brackets, an IPv6 zone suffix dropped), and
/// ``init(legacyIPv4:)`` also the forms `inet_aton` accepts and that URLs and resolvers still honour
/// (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`), which is how a request smuggles loopback past a
/// check that compares strings.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address, its 32 bits in host order (`127.0.0.1` is `0x7F00_0001`).
    case v4(UInt32)
    /// An IPv6 address: the high and the low 64 bits, in host order.
    case v6(high: UInt64, low: UInt64)

    /// Parses a standard IPv4 dotted quad or an IPv6 literal (brackets and a `%zone` are allowed);
    /// nil for anything else, host names included.
    public init?(_ literal: String) {
        var text = Substring(literal)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        if text.contains(":") {
            var raw = in6_addr()
            guard inet_pton(AF_INET6, String(text), &raw) == 1 else { return nil }
            self = Self(in6: raw)
        } else {
            var raw = in_addr()
            guard inet_pton(AF_INET, String(text), &raw) == 1 else { return nil }
            self = .v4(UInt32(bigEndian: raw.s_addr))
        }
    }

    /// Parses an IPv4 address in any form `inet_aton` accepts (one to four parts, each decimal, octal
    /// with a leading `0` or hexadecimal with `0x`), or falls back to ``init(_:)``.
    public init?(legacyIPv4 literal: String) {
        if let standard = IPAddress(literal) {
            self = standard
            return
        }
        guard !literal.isEmpty, literal.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: " ") }) else { return nil }
        var raw = in_addr()
        guard inet_aton(literal, &raw) != 0 else { return nil }
        self = .v4(UInt32(bigEndian: raw.s_addr))
    }

    /// The address of a resolved IPv4 or IPv6 socket address; nil for other families.
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            self = .v4(UInt32(bigEndian: address.s_addr))
        case AF_INET6:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self = Self(in6: address)
        default:
            return nil
        }
    }

    private init(in6 raw: in6_addr) {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: raw) { bytes = Array($0) }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<8 { high = high << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { low = low << 8 | UInt64(bytes[i]) }
        self = .v6(high: high, low: low)
    }

    /// The IPv4 address an IPv6 address carries in its low 32 bits, for the forms that reach an IPv4
    /// host: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated), the NAT64
    /// well-known prefix (`64:ff9b::a.b.c.d`) and the IPv4/IPv6 translation prefix (`::ffff:0:a.b.c.d`).
    /// 6to4 (`2002:AABB:CCDD::/48`) carries it in bits 16 to 48. Nil for every other address.
    public var embeddedIPv4: UInt32? {
        guard case .v6(let high, let low) = self else { return nil }
        let low32 = UInt32(truncatingIfNeeded: low)
        let upper32OfLow = UInt32(truncatingIfNeeded: low >> 32)
        if high == 0 && upper32OfLow == 0x0000_FFFF { return low32 }  // ::ffff:0:0/96
        if high == 0 && upper32OfLow == 0 && low32 > 1 { return low32 }  // ::/96 but :: and ::1
        if high == 0x0064_FF9B_0000_0000 && upper32OfLow == 0 { return low32 }  // 64:ff9b::/96
        if high == 0 && upper32OfLow == 0xFFFF_0000 { return low32 }  // ::ffff:0:0:0/96
        if high >> 48 == 0x2002 { return UInt32(truncatingIfNeeded: high >> 16) }  // 2002::/16
        return nil
    }

    /// The address in its standard text form (`127.0.0.1`, `::1`), without brackets.
    public var description: String {
        switch self {
        case .v4(let bits):
            return "\(bits >> 24).\(bits >> 16 & 0xFF).\(bits >> 8 & 0xFF).\(bits & 0xFF)"
        case .v6(let high, let low):
            var raw = in6_addr()
            withUnsafeMutableBytes(of: &raw) { bytes in
                for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i))) }
                for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i))) }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
