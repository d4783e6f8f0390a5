/// What kind of destination an IP address is, for deciding whether a service that fetches URLs on
/// behalf of its clients may connect to it (server-side request forgery).
///
/// ``init(_:)`` is a pure function of the address. IPv6 forms that reach an IPv4 host (IPv4-mapped,
/// IPv4-compatible, NAT64, 6to4) are classified by the IPv4 address they carry.
public enum AddressClass: String, Sendable, Hashable, CaseIterable {
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// `0.0.0.0/8` ("this network"; `0.0.0.0` reaches the local host on Linux), `::`.
    case unspecified
    /// RFC 1918: `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`.
    case privateUse
    /// RFC 6598 carrier-grade NAT: `100.64.0.0/10` (also some clouds' metadata, `100.100.100.200`).
    case carrierGradeNAT
    /// `169.254.0.0/16` (the cloud metadata address `169.254.169.254` among them), `fe80::/10`.
    case linkLocal
    /// RFC 4193 unique-local `fc00::/7` (AWS's IPv6 metadata `fd00:ec2::254` among them) and the
    /// deprecated site-local `fec0::/10`.
    case uniqueLocal
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// Special-purpose ranges that no public origin uses: IETF protocol assignments `192.0.0.0/24`,
    /// documentation (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`),
    /// benchmarking `198.18.0.0/15`, reserved `240.0.0.0/4`, the discard prefix `100::/64`.
    case reserved
    /// Everything else: a globally routable unicast address.
    case publicUnicast

    /// The class of `address`.
    public init(_ address: IPAddress) {
        if let v4 = address.embeddedIPv4 {
            self = Self(ipv4: v4)
            return
        }
        switch address {
        case .v4(let bits):
            self = Self(ipv4: bits)
        case .v6(let high, let low):
            self = Self(ipv6High: high, low: low)
        }
    }

    /// Whether a fetch may go there without `allowPrivate`: only ``publicUnicast``.
    public var isPublic: Bool { self == .publicUnicast }

    private init(ipv4 bits: UInt32) {
        func within(_ prefix: UInt32, _ length: UInt32) -> Bool {
            length == 0 || bits >> (32 - length) == prefix >> (32 - length)
        }
        if within(0x7F00_0000, 8) {
            self = .loopback
        } else if within(0x0000_0000, 8) {
            self = .unspecified
        } else if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) {
            self = .privateUse
        } else if within(0x6440_0000, 10) {
            self = .carrierGradeNAT
        } else if within(0xA9FE_0000, 16) {
            self = .linkLocal
        } else if bits == 0xFFFF_FFFF {
            self = .broadcast
        } else if within(0xE000_0000, 4) {
            self = .multicast
        } else if within(0xC000_0000, 24) || within(0xC000_0200, 24) || within(0xC633_6400, 24)
            || within(0xCB00_7100, 24) || within(0xC612_0000, 15) || within(0xF000_0000, 4)
        {
            self = .reserved
        } else {
            self = .publicUnicast
        }
    }

    private init(ipv6High high: UInt64, low: UInt64) {
        if high == 0 && low == 1 {
            self = .loopback
        } else if high == 0 && low == 0 {
            self = .unspecified
        } else if high >> 57 == 0xFC >> 1 {  // fc00::/7
            self = .uniqueLocal
        } else if high >> 54 == 0xFE80 >> 6 {  // fe80::/10
            self = .linkLocal
        } else if high >> 54 == 0xFEC0 >> 6 {  // fec0::/10
            self = .uniqueLocal
        } else if high >> 56 == 0xFF {  // ff00::/8
            self = .multicast
        } else if high >> 32 == 0x2001_0DB8 || high == 0x0100_0000_0000_0000 {  // 2001:db8::/32, 100::/64
            self = .reserved
        } else if high == 0 {
            // the rest of ::/64 (IPv4-mapped and -compatible forms were classified by their IPv4 address)
            self = .reserved
        } else {
            self = .publicUnicast
        }
    }
}
