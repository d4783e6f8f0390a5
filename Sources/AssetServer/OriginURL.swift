import Foundation

/// The origin of reverse-proxy mode, parsed once: `http(s)://host[:port]` with no path.
struct OriginURL: Sendable, Hashable {
    /// `http://host:port` without a trailing slash, to which a request target is appended.
    let base: String
    /// `host:port` as ``AssetLoading/DestinationPolicy`` compares authorities.
    let authority: String

    init?(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let hostText = bare.contains(":") ? "[\(bare)]" : bare
        self.base = "\(scheme)://\(hostText.lowercased()):\(port)"
        self.authority = "\(bare.lowercased()):\(port)"
    }

    /// The origin's URL of a request target (`/path?query`).
    func url(forTarget target: String) -> String {
        base + (target.hasPrefix("/") ? target : "/" + target)
    }
}
