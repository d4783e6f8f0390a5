/// The directives of `Cache-Control` field values, request and response (RFC 9111 5.2).
///
/// Parsing is tolerant: names are case-insensitive, whitespace is ignored, arguments may be tokens or
/// quoted strings, several field lines combine, and unknown directives are kept in ``extensions``.
/// Invalid arguments follow RFC 9111: a `max-age` or `s-maxage` that is not a non-negative integer, or
/// that appears twice with different values, becomes `0` (the response is stale, 4.2.1); an invalid
/// `max-stale`, `min-fresh`, `stale-while-revalidate` or `stale-if-error` is ignored (the most restrictive
/// reading). Integers too large for the cache are capped at 2^31 seconds (1.2.2).
public struct CacheControl: Sendable, Hashable {
    /// How much staleness a request's `max-stale` accepts.
    public enum MaxStale: Sendable, Hashable {
        /// `max-stale` without a value: any staleness.
        case unlimited
        /// `max-stale=N`: at most N seconds past the freshness lifetime.
        case seconds(Int)

        /// Whether a response stale by `staleness` seconds is acceptable.
        public func allows(staleness: Double) -> Bool {
            switch self {
            case .unlimited: return true
            case .seconds(let limit): return staleness <= Double(limit)
            }
        }
    }

    /// A directive this type does not interpret.
    public struct Extension: Sendable, Hashable {
        /// The directive name, lowercased.
        public var name: String
        /// Its argument without quotes, if any.
        public var argument: String?

        /// Creates a directive from its lowercased name and its argument without quotes.
        public init(name: String, argument: String? = nil) {
            self.name = name
            self.argument = argument
        }
    }

    /// `max-age=N` (request or response).
    public var maxAge: Int?
    /// `s-maxage=N` (response; shared caches only).
    public var sharedMaxAge: Int?
    /// `no-store` (request or response).
    public var noStore = false
    /// Unqualified `no-cache` (request or response): validate before every reuse.
    public var noCache = false
    /// The field names of a qualified `no-cache="a, b"` (response): these fields must not be reused
    /// without validation. Empty when the directive is absent or unqualified.
    public var noCacheFieldNames: [String] = []
    /// `must-revalidate` (response).
    public var mustRevalidate = false
    /// `proxy-revalidate` (response; shared caches only).
    public var proxyRevalidate = false
    /// `public` (response).
    public var isPublic = false
    /// Unqualified `private` (response).
    public var isPrivate = false
    /// The field names of a qualified `private="a"` (response).
    public var privateFieldNames: [String] = []
    /// `immutable` (RFC 8246, response).
    public var immutable = false
    /// `stale-while-revalidate=N` (RFC 5861, response).
    public var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861, request or response).
    public var staleIfError: Int?
    /// `max-stale` or `max-stale=N` (request).
    public var maxStale: MaxStale?
    /// `min-fresh=N` (request).
    public var minFresh: Int?
    /// `only-if-cached` (request).
    public var onlyIfCached = false
    /// `no-transform` (request or response).
    public var noTransform = false
    /// `must-understand` (RFC 9111 5.2.2.3, response): store only when the status's caching rules are
    /// understood, and then `no-store` is ignored.
    public var mustUnderstand = false
    /// Directives not listed above, in order.
    public var extensions: [Extension] = []

    /// The largest delta-seconds value kept (RFC 9111 1.2.2).
    public static let maximumDeltaSeconds = 2_147_483_648

    /// No directive at all.
    public init() {}

    /// Parses one or more `Cache-Control` field values (one per field line).
    public init(fieldValues: some Sequence<String>) {
        var maxAges: [Int?] = []
        var sharedMaxAges: [Int?] = []
        for value in fieldValues {
            for member in HeaderListSplitter.split(value) {
                let (name, argument) = Self.directive(member)
                switch name {
                case "max-age":
                    maxAges.append(Self.deltaSeconds(argument))
                case "s-maxage":
                    sharedMaxAges.append(Self.deltaSeconds(argument))
                case "no-store": self.noStore = true
                case "no-cache":
                    if let argument, !argument.isEmpty {
                        self.noCacheFieldNames += HeaderListSplitter.split(argument).map { $0.lowercased() }
                    } else {
                        self.noCache = true
                    }
                case "must-revalidate": self.mustRevalidate = true
                case "proxy-revalidate": self.proxyRevalidate = true
                case "public": self.isPublic = true
                case "private":
                    if let argument, !argument.isEmpty {
                        self.privateFieldNames += HeaderListSplitter.split(argument).map { $0.lowercased() }
                    } else {
                        self.isPrivate = true
                    }
                case "immutable": self.immutable = true
                case "stale-while-revalidate":
                    self.staleWhileRevalidate = Self.firstValid(self.staleWhileRevalidate, Self.deltaSeconds(argument))
                case "stale-if-error":
                    self.staleIfError = Self.firstValid(self.staleIfError, Self.deltaSeconds(argument))
                case "max-stale":
                    if argument == nil {
                        self.maxStale = .unlimited
                    } else if let seconds = Self.deltaSeconds(argument), self.maxStale == nil {
                        self.maxStale = .seconds(seconds)
                    }
                case "min-fresh":
                    self.minFresh = Self.firstValid(self.minFresh, Self.deltaSeconds(argument))
                case "only-if-cached": self.onlyIfCached = true
                case "no-transform": self.noTransform = true
                case "must-understand": self.mustUnderstand = true
                default:
                    self.extensions.append(Extension(name: name, argument: argument))
                }
            }
        }
        self.maxAge = Self.freshnessValue(maxAges)
        self.sharedMaxAge = Self.freshnessValue(sharedMaxAges)
    }

    /// Parses a single `Cache-Control` field value.
    public init(_ fieldValue: String) {
        self.init(fieldValues: [fieldValue])
    }

    /// Parses every `Cache-Control` field line of `headers`.
    public init(headers: HeaderFields) {
        self.init(fieldValues: headers.values(for: "Cache-Control"))
    }

    /// Whether any directive is present.
    public var isEmpty: Bool { self == CacheControl() }

    // MARK: parsing helpers

    /// Splits `name[=argument]`, lowercasing the name and unquoting the argument.
    private static func directive(_ member: String) -> (name: String, argument: String?) {
        guard let equals = member.firstIndex(of: "=") else {
            return (HeaderFields.trimmed(member).lowercased(), nil)
        }
        let name = HeaderFields.trimmed(String(member[..<equals])).lowercased()
        let argument = HeaderListSplitter.unquoted(member[member.index(after: equals)...])
        return (name, argument)
    }

    /// A non-negative integer, capped at ``maximumDeltaSeconds``; nil when absent or invalid.
    static func deltaSeconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty else { return nil }
        var value = 0
        for byte in argument.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), Self.maximumDeltaSeconds)
        }
        return value
    }

    /// A freshness directive's value: nil when absent, 0 (stale) when any occurrence is invalid or the
    /// occurrences disagree.
    private static func freshnessValue(_ occurrences: [Int?]) -> Int? {
        guard let first = occurrences.first else { return nil }
        guard let value = first, occurrences.allSatisfy({ $0 == value }) else { return 0 }
        return value
    }

    private static func firstValid(_ current: Int?, _ parsed: Int?) -> Int? {
        current ?? parsed
    }
}
