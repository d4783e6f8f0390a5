import AssetLoading
import Testing

/// The address classifier and the destination policy, as pure functions on address literals: no
/// test here resolves a name or connects anywhere.
@Suite("Destination policy")
struct DestinationPolicyTests {
    static let classified: [(String, AddressClass)] = [
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("::1", .loopback),
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("10.0.0.1", .privateUse), ("10.255.255.255", .privateUse), ("172.16.0.1", .privateUse),
        ("172.31.255.255", .privateUse), ("192.168.1.1", .privateUse),
        ("100.64.0.1", .carrierGradeNAT), ("100.127.255.255", .carrierGradeNAT), ("100.100.100.200", .carrierGradeNAT),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fd00:ec2::254", .uniqueLocal), ("fec0::1", .uniqueLocal),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
        ("255.255.255.255", .broadcast),
        ("192.0.0.8", .reserved), ("192.0.2.1", .reserved), ("198.51.100.7", .reserved), ("203.0.113.9", .reserved),
        ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("240.0.0.1", .reserved), ("2001:db8::1", .reserved),
        ("100::1", .reserved),
        // IPv6 forms that reach an IPv4 host are judged by that host
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("::ffff:169.254.169.254", .linkLocal),
        ("::ffff:10.1.2.3", .privateUse), ("::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal),
        ("::ffff:0:192.168.0.1", .privateUse), ("2002:7f00:1::1", .loopback), ("2002:c0a8:101::", .privateUse),
        ("::ffff:8.8.8.8", .publicUnicast), ("64:ff9b::808:808", .publicUnicast),
        // public neighbours of the ranges above
        ("8.8.8.8", .publicUnicast), ("1.1.1.1", .publicUnicast), ("9.255.255.255", .publicUnicast),
        ("11.0.0.0", .publicUnicast), ("172.15.255.255", .publicUnicast), ("172.32.0.0", .publicUnicast),
        ("192.167.255.255", .publicUnicast), ("192.169.0.0", .publicUnicast), ("100.63.255.255", .publicUnicast),
        ("100.128.0.0", .publicUnicast), ("169.253.255.255", .publicUnicast), ("223.255.255.255", .publicUnicast),
        ("128.0.0.1", .publicUnicast), ("2606:4700:4700::1111", .publicUnicast), ("2001:4860::8888", .publicUnicast),
    ]

    @Test(arguments: Self.classified)
    func classifies(_ literal: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(literal))
        #expect(AddressClass(address) == expected, "\(literal)")
    }

    @Test func everyClassIsCovered() {
        #expect(Set(Self.classified.map(\.1)) == Set(AddressClass.allCases))
    }

    @Test func parsesStandardLiteralsOnly() {
        #expect(IPAddress("127.0.0.1") == .v4(0x7F00_0001))
        #expect(IPAddress("[::1]") == .v6(high: 0, low: 1))
        #expect(IPAddress("fe80::1%eth0") == .v6(high: 0xFE80_0000_0000_0000, low: 1))
        for notStandard in ["127.1", "2130706433", "0x7f.0.0.1", "localhost", "", "1.2.3.4.5", "::g", "[::1"] {
            #expect(IPAddress(notStandard) == nil, "\(notStandard)")
        }
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("10.20.30.40")?.description == "10.20.30.40")
    }

    @Test(arguments: ["127.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "127.0.1", "017700000001"])
    func legacyLoopbackSpellings(_ literal: String) throws {
        let address = try #require(IPAddress(legacyIPv4: literal))
        #expect(address == .v4(0x7F00_0001) || AddressClass(address) == .loopback, "\(literal)")
        #expect(IPAddress(literal) == nil)
    }

    @Test func legacyParserRejectsNames() {
        for name in ["localhost", "example.org", "1.2.3.4.5", "127.0.0.1 ", "", "0x", "999999999999"] {
            #expect(IPAddress(legacyIPv4: name) == nil, "\(name)")
        }
    }

    @Test func refusesEveryNonPublicAddressUnlessAllowed() throws {
        let strict = DestinationPolicy()
        let loose = DestinationPolicy(allowPrivate: true)
        for (literal, addressClass) in Self.classified {
            let address = try #require(IPAddress(literal))
            let refusal = strict.refusal(of: [address], authority: "h:80")
            #expect((refusal == nil) == (addressClass == .publicUnicast), "\(literal)")
            #expect(refusal?.addressClass == (addressClass == .publicUnicast ? nil : addressClass))
            #expect(loose.refusal(of: [address], authority: "h:80") == nil)
        }
    }

    @Test func oneBadAddressAmongSeveralRefusesTheHost() throws {
        let mixed = [try #require(IPAddress("8.8.8.8")), try #require(IPAddress("169.254.169.254"))]
        let refusal = try #require(DestinationPolicy().refusal(of: mixed, authority: "rebind.test:80"))
        #expect(refusal.addressClass == .linkLocal)
        #expect("\(refusal)" == "169.254.169.254 is a linkLocal address")
        #expect(DestinationPolicy().refusal(of: [], authority: "h:80") != nil)
    }

    @Test func trustedAuthorityIsMatchedAsText() throws {
        let policy = DestinationPolicy(trustedAuthorities: [DestinationPolicy.authority(host: "127.0.0.1", port: 8080)])
        let loopback = [try #require(IPAddress("127.0.0.1"))]
        #expect(policy.refusal(of: loopback, authority: "127.0.0.1:8080") == nil)
        #expect(policy.refusal(of: loopback, authority: "127.0.0.1:8081") != nil)
        #expect(policy.refusal(of: loopback, authority: "127.1:8080") != nil)
        #expect(policy.refusal(of: loopback, authority: "localhost:8080") != nil)
        #expect(DestinationPolicy.authority(host: "[::1]", port: 80) == "::1:80")
        #expect(DestinationPolicy.authority(host: "CDN.Example.ORG", port: 443) == "cdn.example.org:443")
    }

    @Test func hostPatterns() throws {
        let exact = try #require(HostPattern("CDN.example.org"))
        #expect(exact.matches("cdn.example.org"))
        #expect(!exact.matches("img.cdn.example.org"))
        let wildcard = try #require(HostPattern("*.example.org"))
        #expect(wildcard.matches("cdn.example.org"))
        #expect(wildcard.matches("a.b.example.org"))
        #expect(!wildcard.matches("example.org"))
        #expect(!wildcard.matches("badexample.org"))
        for bad in ["", "*", "*.", "a*.example.org", "example.org/x", "*.*.org"] {
            #expect(HostPattern(bad) == nil, "\(bad)")
        }
        let policy = DestinationPolicy(allowedHosts: [wildcard, exact])
        #expect(policy.allowsHost("x.example.org"))
        #expect(policy.allowsHost("CDN.EXAMPLE.ORG"))
        #expect(!policy.allowsHost("example.com"))
        #expect(DestinationPolicy().allowsHost("anything.test"))
    }
}
