#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client.Configuration {
    /// Where a request for an object goes.
    struct Address: Sendable {
        /// The URL sent, its path and query encoded exactly as they are signed.
        var url: String
        /// The `Host` value, with the port when it is not the scheme's default.
        var host: String
        /// The path as signed, not encoded: `/bucket/key` or `/key`.
        var path: String
    }

    /// The URL, `Host` and signed path of `location` at the endpoint.
    func address(of location: S3Location, query: [(String, String)] = []) -> Address {
        let components = URLComponents(string: self.endpoint)
        let scheme = components?.scheme?.lowercased() ?? "https"
        var host = components?.host ?? self.endpoint
        if host.contains(":") { host = "[\(host)]" }  // an IPv6 literal
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components?.port.flatMap { $0 == defaultPort ? nil : $0 }
        let path: String
        switch self.addressing {
        case .path:
            path = location.key.isEmpty ? "/\(location.bucket)" : "/\(location.bucket)/\(location.key)"
        case .virtualHosted:
            host = "\(location.bucket).\(host)"
            path = "/\(location.key)"
        }
        let authority = port.map { "\(host):\($0)" } ?? host
        var url = "\(scheme)://\(authority)\(SigV4Signer.uriEncode(path, keepSlash: true))"
        if !query.isEmpty {
            url += "?" + SigV4Signer.canonicalQuery(query)
        }
        return Address(url: url, host: authority, path: path)
    }
}
