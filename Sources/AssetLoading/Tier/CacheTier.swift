import Foundation
/// A second level of cache: a tier of `assetpipe serve` nodes behind a consistent-hashing load
/// balancer, asked instead of the origin when the local caches miss.
///
/// - A request for `URL` goes to `TIER/v1/asset?url=URL` (with `kind=` when known), carrying the
///   request's fields (conditional fields and `Range` included); what comes back is cached under
///   the original URL with the origin's validators, which the tier passes on, so revalidation works
///   end to end (a stale local entry is revalidated against the tier).
/// - When the tier cannot be reached or answers `5xx`, the loader goes to the origin directly
///   (``Fallback/origin``, the default) or fails (``Fallback/fail``); the answer says which
///   (``AssetResponse/route``).
///
/// ```swift
/// var loader = AssetLoader.Configuration()
/// loader.tier = CacheTier(url: URL(string: "http://tier.internal:8080")!)!
/// ```
public struct CacheTier: Sendable, Hashable {
    /// What a failing tier leads to.
    public enum Fallback: String, Sendable, Hashable, CaseIterable {
        /// Ask the origin directly.
        case origin
        /// Fail the load.
        case fail
    }

    /// The tier's base URL, `http(s)://host[:port]` without a trailing slash.
    public let baseURL: String
    /// What a failing tier leads to. Default ``Fallback/origin``.
    public var fallback: Fallback

    /// Nil unless `url` is an absolute http or https URL (a path prefix is kept).
    public init?(url location: URL, fallback: Fallback = .origin) {
        let url = location.absoluteString
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.count > 8 else { return nil }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        guard let components = URLComponentsLite(base), !components.host.isEmpty, !base.contains("?") else { return nil }
        self.baseURL = base
        self.fallback = fallback
    }

    /// The tier's URL for `url`.
    public func assetURL(for url: String, kind: AssetKind?) -> String {
        var target = "\(baseURL)/v1/asset?url=\(Self.encode(url))"
        if let kind { target += "&kind=\(kind.rawValue)" }
        return target
    }

    /// The tier's image service URL for a variant of `url`: `/v1/image?url=U&<query>`, where `query`
    /// is the transform's canonical pairs joined by `&`.
    public func imageURL(for url: String, query: String) -> String {
        "\(baseURL)/v1/image?url=\(Self.encode(url))" + (query.isEmpty ? "" : "&" + query)
    }

    /// Whether `url` is the tier's own (never sent through the tier again).
    public func owns(_ url: String) -> Bool {
        url.hasPrefix(baseURL + "/")
    }

    /// Percent-encodes all but the unreserved characters (RFC 3986 2.3).
    static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count * 3 / 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }
}

/// The host of an http(s) URL, found without Foundation.
struct URLComponentsLite {
    let host: String

    init?(_ url: String) {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPart = authority.split(separator: "@").last ?? authority
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { return nil }
            host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
        } else {
            host = String(hostPart.prefix { $0 != ":" })
        }
    }
}

import AssetStorage

/// Which way a load's network exchange went.
public enum LoadRoute: Sendable, Hashable, CustomStringConvertible {
    /// Straight to the origin (no tier configured).
    case origin
    /// Through the tier; the node that answered, when it said (`X-Assetpipe-Node`).
    case tier(node: String?)
    /// The tier failed (unreachable or `5xx`) and the origin answered instead.
    case originAfterTierFailure(reason: String)

    /// `origin`, `tier(<node>)` (`?` when the node did not say) or
    /// `origin after tier failure (<reason>)`.
    public var description: String {
        switch self {
        case .origin: return "origin"
        case .tier(let node): return "tier(\(node ?? "?"))"
        case .originAfterTierFailure(let reason): return "origin after tier failure (\(reason))"
        }
    }

    /// The tier node that answered, if any.
    public var node: String? {
        if case .tier(let node) = self { return node }
        return nil
    }
}
