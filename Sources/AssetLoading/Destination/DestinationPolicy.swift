/// Which destinations a loader may connect to: the guard of a service that fetches URLs for its
/// clients against server-side request forgery.
///
/// - Only `http` and `https` URLs are fetched (the loader refuses other schemes anyway).
/// - With ``allowedHosts`` non-empty, a URL whose host matches none of the patterns is refused.
/// - Every address a host name resolves to must be ``AddressClass/publicUnicast``, unless
///   ``allowPrivate`` is set or the URL's authority is one of ``trustedAuthorities`` (the origin an
///   operator configured, typically on a private network). One private address among several refuses
///   the host: a resolver that mixes them is exactly what a rebinding attack looks like.
/// - The loader then connects to an address it checked (never a second lookup), and checks again on
///   every redirect.
///
/// ```swift
/// var loader = AssetLoader.Configuration()
/// loader.destinationPolicy = DestinationPolicy(allowedHosts: [HostPattern("*.example.org")!])
/// ```
public struct DestinationPolicy: Sendable, Hashable {
    /// Let destinations on loopback, private, link-local and other non-public addresses through.
    /// Default false.
    public var allowPrivate: Bool
    /// When non-empty, the only hosts fetched. Default empty (any host).
    public var allowedHosts: [HostPattern]
    /// Authorities (`host:port`, host lowercased, the scheme's default port written out) exempt from
    /// the address check: the origin the service fronts. Matched as text, so `127.1:8080` is not
    /// `127.0.0.1:8080`. Default empty.
    public var trustedAuthorities: Set<String>
    /// How long a host's checked addresses are reused before it is resolved again. Default 30 s.
    public var resolutionLifetime: Duration
    /// The buckets `s3://` URLs may name under this policy (the object store is the operator's
    /// configured one, so no address is checked); any other bucket is
    /// ``LoaderError/forbiddenDestination``. Default empty: no `s3://` URL at all.
    public var allowedS3Buckets: Set<String> = []

    /// Creates a policy; every parameter defaults to the value documented on its property.
    public init(
        allowPrivate: Bool = false,
        allowedHosts: [HostPattern] = [],
        trustedAuthorities: Set<String> = [],
        resolutionLifetime: Duration = .seconds(30)
    ) {
        self.allowPrivate = allowPrivate
        self.allowedHosts = allowedHosts
        self.trustedAuthorities = trustedAuthorities
        self.resolutionLifetime = resolutionLifetime
    }

    /// `host:port` as ``trustedAuthorities`` holds it.
    public static func authority(host: String, port: Int) -> String {
        "\(Self.bare(host).lowercased()):\(port)"
    }

    /// Whether the host's name passes ``allowedHosts``.
    public func allowsHost(_ host: String) -> Bool {
        guard !self.allowedHosts.isEmpty else { return true }
        let name = Self.bare(host).lowercased()
        return self.allowedHosts.contains { $0.matches(name) }
    }

    /// Why the addresses of a destination are refused, or nil when they may be connected to.
    ///
    /// - Parameters:
    ///   - addresses: every address the host resolved to (one, for an IP literal).
    ///   - authority: the URL's ``authority(host:port:)``.
    public func refusal(of addresses: [IPAddress], authority: String) -> AddressRefusal? {
        if self.allowPrivate || self.trustedAuthorities.contains(authority) { return nil }
        guard !addresses.isEmpty else { return AddressRefusal(address: nil, addressClass: nil) }
        for address in addresses {
            let addressClass = AddressClass(address)
            if !addressClass.isPublic { return AddressRefusal(address: address, addressClass: addressClass) }
        }
        return nil
    }

    /// The host without IPv6 brackets.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

/// Why ``DestinationPolicy/refusal(of:authority:)`` refused a destination.
public struct AddressRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The first refused address (nil when the host resolved to no address at all).
    public var address: IPAddress?
    /// Its class.
    public var addressClass: AddressClass?

    /// The refusal as a phrase, e.g. `10.0.0.7 is a privateUse address` or `the host resolved to no address`.
    public var description: String {
        guard let address, let addressClass else { return "the host resolved to no address" }
        return "\(address) is a \(addressClass.rawValue) address"
    }
}

/// A host-name pattern of ``DestinationPolicy/allowedHosts``: an exact name (`cdn.example.org`), or
/// `*.` followed by a domain, which matches its subdomains at any depth but not the domain itself.
/// Compared without regard to case.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern, lowercased.
    public let pattern: String

    /// Nil for an empty pattern or a `*` anywhere but a leading `*.`.
    public init?(_ pattern: String) {
        let lowered = DestinationPolicy.bare(pattern).lowercased()
        let rest = lowered.hasPrefix("*.") ? lowered.dropFirst(2) : lowered[...]
        guard !rest.isEmpty, !rest.contains("*"), !rest.contains("/") else { return nil }
        self.pattern = lowered
    }

    /// Whether `host` (lowercased, without brackets) matches.
    public func matches(_ host: String) -> Bool {
        if self.pattern.hasPrefix("*.") {
            let domain = self.pattern.dropFirst(1)  // ".example.org"
            return host.hasSuffix(domain) && host.count > domain.count
        }
        return host == self.pattern
    }

    /// The pattern, lowercased, e.g. `*.example.org`.
    public var description: String { self.pattern }
}
